import { z } from 'zod';
import { billingEnvShape, mailTargetFromEnv } from '../src/env';

const parse = (env: Record<string, string>) => z.object(billingEnvShape).parse(env);

describe("billing-service's mail target", () => {
  it.each([
    ['nothing set: .eml files under the data folder', {}, { kind: 'folder', dir: './.data/mail' }],
    ['MAIL_DIR', { MAIL_DIR: '/var/mail/vus' }, { kind: 'folder', dir: '/var/mail/vus' }],
    ['SMTP_URL', { SMTP_URL: 'smtp://u:p@mail.example:587' }, { kind: 'smtp', url: 'smtp://u:p@mail.example:587' }],
  ])('%s', (_, env, expected) => {
    expect(mailTargetFromEnv(parse(env))).toMatchObject(expected);
  });
});
