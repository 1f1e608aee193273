import { CATEGORIES, DIMENSIONS, type LimiterSource, type LimitTable } from '@vus/limits';
import { z } from 'zod';
import type { PriceList } from './billing';
import type { MailTarget } from './mailer';

const limitTable = z.array(z.object({ category: z.enum(CATEGORIES), dimension: z.enum(DIMENSIONS), limit: z.number().int().min(0) }));
/** `{"2": [{"category":"search","dimension":"RPM","limit":1200}], "3": [...]}`: a tier's whole table. */
const tierLimitsJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.enum(['1', '2', '3']), limitTable));

/** billing-service's environment beside the kit's. */
export const billingEnvShape = {
  TIER_LIMITS: tierLimitsJson.optional(),
  /** smtp://user:pass@host:587; without it e-mails are written as .eml files to MAIL_DIR. */
  SMTP_URL: z.string().url().optional(),
  /** Under the data folder `npm start` uses (./.data), not loose in the working directory. */
  MAIL_DIR: z.string().default('./.data/mail'),
  MAIL_FROM: z.string().default('VUS billing <billing@localhost>'),
  /** The gateway's rate-limit counters: usage is debited from the minutes and tokens budgets there. */
  REDIS_URL: z.string().url().optional(),
};

type BillingEnv = z.infer<z.ZodObject<typeof billingEnvShape>>;

export function mailTargetFromEnv(config: BillingEnv): MailTarget {
  return config.SMTP_URL
    ? { kind: 'smtp', url: config.SMTP_URL, from: config.MAIL_FROM }
    : { kind: 'folder', dir: config.MAIL_DIR, from: config.MAIL_FROM };
}

export function tierLimitsFromEnv(config: BillingEnv): Readonly<Record<number, LimitTable>> | undefined {
  return config.TIER_LIMITS && Object.fromEntries(Object.entries(config.TIER_LIMITS).map(([tier, table]) => [Number(tier), table]));
}

export interface BillingServiceOptions {
  mail: MailTarget;
  prices?: PriceList;
  /** Developer tier limits; a tier that is absent has the Free plan's (SPEC §8). */
  tierLimits?: Readonly<Record<number, LimitTable>> | undefined;
  /** How often the month-end job looks for a month to close (it catches up on start). */
  monthEndCheckMs?: number;
  mailPollMs?: number;
  /** Counters of the minutes and tokens budgets, in Redis: the ones the gateway admits requests with. */
  redisUrl?: string | undefined;
  /** The same counters when the caller holds them (embedded mode: the gateway's memory). Overrides `redisUrl`. */
  limiters?: LimiterSource | undefined;
}

export function billingOptionsFromEnv(config: BillingEnv): BillingServiceOptions {
  return { mail: mailTargetFromEnv(config), tierLimits: tierLimitsFromEnv(config), redisUrl: config.REDIS_URL };
}
