import { createLogger, ManualClock, newId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { Mailer, type SendMail } from '../src/mailer';
import { billingService } from '../src/main';
import { billingStore, type OutgoingMail } from '../src/store';

const logger = createLogger({ service: 'mailer-test', level: 'silent' });

describe.each(DATABASE_KINDS)('mailer on %s', (_kind, create) => {
  let database: ThrowawayDatabase;

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, billingService);
  });
  afterAll(() => database.drop());

  const queueMail = (clock: ManualClock): Promise<OutgoingMail> =>
    database.db.withTx(async (q) => {
      const mail = {
        id: newId(),
        orgId: newId(),
        kind: 'tier_up',
        recipient: 'owner@example.com',
        subject: 'Tier 2',
        body: 'Hello',
        createdAt: clock.now(),
      };
      await billingStore.enqueueMail(q, mail);
      return mail;
    });

  it('sends each queued e-mail once, and retries a failed send after the queue’s backoff', async () => {
    const clock = new ManualClock('2026-02-01T00:00:00Z');
    const sent: string[] = [];
    let transportUp = false;
    const send: SendMail = async (mail) => {
      if (!transportUp) throw new Error('SMTP unreachable');
      sent.push(mail.id);
    };
    const mailer = new Mailer({ db: database.db, clock, send, logger });
    const mail = await queueMail(clock);

    expect(await mailer.sendDue()).toBe(1);
    expect(sent).toEqual([]);
    const [failed] = await billingStore.listMail(database.db, mail.orgId);
    expect(failed).toMatchObject({ sentAt: null });

    // Not before the first retry (30–60 s after a failure, the mail policy's first step) …
    transportUp = true;
    clock.advance(29_000);
    expect(await mailer.sendDue()).toBe(0);
    // … and sent once it is due; never twice.
    clock.advance(31_001);
    expect(await mailer.sendDue()).toBe(1);
    expect(await mailer.sendDue()).toBe(0);
    expect(sent).toEqual([mail.id]);
    const [delivered] = await billingStore.listMail(database.db, mail.orgId);
    expect(delivered?.sentAt).toEqual(clock.now());
    await mailer.stop();
  });
});
