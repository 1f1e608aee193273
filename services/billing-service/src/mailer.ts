import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { billingStore as store, type OutgoingMail } from './store';

/** Where e-mails go: an SMTP server, or a folder of .eml files when no SMTP is configured. */
export type MailTarget = { kind: 'smtp'; url: string; from: string } | { kind: 'folder'; dir: string; from: string };

export type SendMail = (mail: OutgoingMail) => Promise<void>;

export function createMailTransport(target: MailTarget): SendMail {
  if (target.kind === 'smtp') {
    const transport = nodemailer.createTransport(target.url);
    return async (mail) => {
      await transport.sendMail({ from: target.from, to: mail.recipient, subject: mail.subject, text: mail.body, messageId: `<${mail.id}@vus>` });
    };
  }
  mkdirSync(target.dir, { recursive: true });
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return async (mail) => {
    const info = await transport.sendMail({ from: target.from, to: mail.recipient, subject: mail.subject, text: mail.body, messageId: `<${mail.id}@vus>` });
    // Write then rename, so a reader of the folder never sees half a message.
    const file = join(target.dir, `${mail.createdAt.toISOString().replace(/[:.]/g, '-')}-${mail.id}.eml`);
    if (!Buffer.isBuffer(info.message)) throw new Error('the mail transport did not buffer the message');
    writeFileSync(`${file}.tmp`, info.message);
    renameSync(`${file}.tmp`, file);
  };
}

export interface MailerOptions {
  db: Database;
  clock: Clock;
  send: SendMail;
  logger: Logger;
  pollMs?: number;
}

const retryDelayMs = (attempts: number) => Math.min(60_000 * 2 ** attempts, 6 * 3_600_000);

/**
 * Sends the notifications outbox: each mail once it is committed, retried with backoff when the
 * transport fails. Safe with several replicas (rows are claimed with SKIP LOCKED).
 */
export class Mailer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: MailerOptions) {}

  /** Sends what is due now; returns how many were sent. */
  async sendDue(): Promise<number> {
    const { db, clock, send, logger } = this.options;
    return db.withTx(async (q) => {
      let sent = 0;
      for (const mail of await store.claimDueMail(q, clock.now(), 20)) {
        try {
          await send(mail);
          await store.markMailSent(q, mail.id, clock.now());
          sent++;
        } catch (error) {
          logger.warn({ err: String(error), mailId: mail.id }, 'sending a notification failed; will retry');
          await store.markMailFailed(q, mail.id, String(error), new Date(clock.now().getTime() + retryDelayMs(mail.attempts)));
        }
      }
      return sent;
    });
  }

  private again = false;

  /** Asks for a send soon (after a transaction queued mail); a wake during a pass runs one more. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.sendDue()
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'mailer pass failed'))
      .then(() => undefined)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollMs ?? 10_000);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
