import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures. Every delivery carries:
 *   VUS-Webhook-Id         the delivery id: the same on every attempt, dedupe on it
 *   VUS-Webhook-Timestamp  unix seconds when this attempt was signed
 *   VUS-Webhook-Signature  `v1=` + hex HMAC-SHA256(secret, `${timestamp}.${raw body}`)
 *   VUS-Webhook-Event      the webhook event type, e.g. index.task.ready
 * Receivers recompute the HMAC over the raw body bytes, compare in constant time, and reject
 * timestamps too far from their clock (replays).
 */
export const SIGNATURE_HEADERS = {
  id: 'VUS-Webhook-Id',
  timestamp: 'VUS-Webhook-Timestamp',
  signature: 'VUS-Webhook-Signature',
  event: 'VUS-Webhook-Event',
} as const;

const VERSION = 'v1';

/** A new signing secret: shown to the client once, at endpoint creation. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function sign(secret: string, timestamp: number, body: string): string {
  return `${VERSION}=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does: true when `signature` is ours for this body and timestamp, and the
 * timestamp is within `toleranceSeconds` of `now`.
 */
export function verify(
  secret: string,
  header: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  now: Date,
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(header.timestamp);
  if (!Number.isInteger(timestamp) || !header.signature) return false;
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, timestamp, body));
  const given = Buffer.from(header.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
