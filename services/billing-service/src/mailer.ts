import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { createJobStore, JobRunner, runnerName, type ClaimedJob, type JobContext, type JobOutcome, type RetryPolicy } from '@vus/jobs';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { billingStore as store, MAIL_JOB, type OutgoingMail } from './store';

/** Where e-mails go: an SMTP server, or a folder of .eml files when no SMTP is configured. */
export type MailTarget = { kind: 'smtp'; url: string; from: string } | { kind: 'folder'; dir: string; from: string };

export type SendMail = (mail: OutgoingMail) => Promise<void>;

export function createMailTransport(target: MailTarget): SendMail {
  if (target.kind === 'smtp') {
    const transport = nodemailer.createTransport(target.url);
    return async (mail) => {
      await transport.sendMail({
        from: target.from,
        to: mail.recipient,
        subject: mail.subject,
        text: mail.body,
        messageId: `<${mail.id}@vus>`,
      });
    };
  }
  mkdirSync(target.dir, { recursive: true });
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return async (mail) => {
    const info = await transport.sendMail({
      from: target.from,
      to: mail.recipient,
      subject: mail.subject,
      text: mail.body,
      messageId: `<${mail.id}@vus>`,
    });
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

/** After a failed send: again after about 1 min, 2 min, 4 min … at most 6 h (libs/jobs' one policy). */
export const MAIL_RETRY: RetryPolicy = { baseMs: 60_000, maxMs: 6 * 3_600_000 };
/** Sends of one e-mail before it is given up (about a week of tries at the 6 h cap). */
export const MAIL_MAX_ATTEMPTS = 40;
/** E-mails sent side by side. */
const MAIL_CONCURRENCY = 4;
const MAIL_LEASE_MS = 120_000;

/**
 * Sends the notifications outbox: each e-mail is a job of the job queue (libs/jobs), queued in the
 * transaction that wrote it, sent once it is committed and retried with the queue's backoff when
 * the transport fails. Safe with several replicas (the queue's claims never hand one job to two).
 */
export class Mailer {
  private readonly runner: JobRunner;

  constructor(private readonly options: MailerOptions) {
    this.runner = new JobRunner({
      store: createJobStore(options.db),
      kinds: { [MAIL_JOB]: { run: (job, context) => this.sendOne(job, context), retry: MAIL_RETRY, maxAttempts: MAIL_MAX_ATTEMPTS } },
      concurrency: MAIL_CONCURRENCY,
      leaseMs: MAIL_LEASE_MS,
      pollMs: options.pollMs ?? 10_000,
      owner: runnerName(),
      clock: options.clock,
      logger: options.logger,
    });
  }

  /** Sends what is due now and waits for it; returns how many e-mails were attempted. */
  sendDue(): Promise<number> {
    return this.runner.runDue();
  }

  /** Asks for a send soon (after a transaction queued mail). */
  wake(): void {
    this.runner.wake();
  }

  start(): void {
    this.runner.start();
  }

  async stop(): Promise<void> {
    await this.runner.stop();
  }

  private async sendOne(job: ClaimedJob, context: JobContext): Promise<JobOutcome> {
    const { db, clock, send, logger } = this.options;
    const mail = await store.unsentMail(db, job.subjectId);
    if (!mail) return { kind: 'succeeded' };
    try {
      await send(mail);
    } catch (error) {
      const retryAt = context.retryAt();
      logger.warn(
        { err: String(error), mailId: mail.id, retryAt },
        retryAt ? 'sending a notification failed; will retry' : 'sending a notification failed; giving up',
      );
      await store.markMailFailed(db, mail.id, String(error), retryAt);
      return retryAt ? { kind: 'retry', error: String(error) } : { kind: 'failed', error: String(error) };
    }
    await store.markMailSent(db, mail.id, clock.now());
    return { kind: 'succeeded' };
  }
}
