import { ManualClock } from '@vus/core';
import { analyzeTaskStatusChanged, type EventEnvelope, type TaskStatusChangedPayload } from '@vus/events';
import { AddressGuard, parseAllowList, type Resolver } from '@vus/fetch';
import { retryAt } from '@vus/jobs';
import { webhookRetry } from '../src/webhooks/dispatcher';
import { sign, verify } from '../src/webhooks/signature';
import { checkWebhookUrl, parseWebhookUrl } from '../src/webhooks/webhook-url';
import {
  normalizeEventTypes,
  planAnalyzeTaskDeliveries,
  planDeliveries,
  webhookEventsFor,
  type WebhookEndpointRecord,
} from '../src/webhooks/webhooks';

describe('webhook URLs', () => {
  it.each([
    ['file:///etc/passwd', 'The scheme file: is not allowed; use http or https.'],
    ['gopher://example.com/', 'The scheme gopher: is not allowed; use http or https.'],
    ['ftp://example.com/x', 'The scheme ftp: is not allowed; use http or https.'],
    ['javascript:alert(1)', 'The scheme javascript: is not allowed; use http or https.'],
    ['not a url', 'It must be an absolute http or https URL.'],
    ['https://user:pw@example.com/', 'Credentials in the URL are not allowed; verify the signature instead.'],
  ])('refuses %s', (url, why) => {
    expect(() => parseWebhookUrl(url)).toThrow(`The url parameter is invalid. ${why}`);
  });

  const fakeDns =
    (answers: Record<string, string[]>): Resolver =>
    async (host) => {
      const addresses = answers[host];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };

  it('checks every address the host resolves to at registration, and says why it refuses', async () => {
    const guard = new AddressGuard(
      parseAllowList('localhost'),
      fakeDns({ 'public.test': ['93.184.216.34'], 'mixed.test': ['93.184.216.34', '10.0.0.7'], localhost: ['127.0.0.1'] }),
    );
    await expect(checkWebhookUrl(guard, 'https://public.test/hook')).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl(guard, 'http://localhost:9000/')).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl(guard, 'https://mixed.test/hook')).rejects.toThrow(
      'The url parameter is invalid. Webhooks cannot be sent to private, loopback, link-local or metadata addresses: mixed.test does not resolve to a public address.',
    );
    await expect(checkWebhookUrl(guard, 'http://169.254.169.254/latest/meta-data')).rejects.toThrow(
      'The url parameter is invalid. Webhooks cannot be sent to private, loopback, link-local or metadata addresses: 169.254.169.254 is a link-local address (cloud metadata service).',
    );
    await expect(checkWebhookUrl(guard, 'http://[::1]:8080/')).rejects.toThrow('a loopback address');
    // Told as mixed.test is: which internal names exist, and where they point, is not given away.
    await expect(checkWebhookUrl(guard, 'https://nowhere.test/')).rejects.toThrow(
      'The url parameter is invalid. Webhooks cannot be sent to private, loopback, link-local or metadata addresses: nowhere.test does not resolve to a public address.',
    );
    await expect(checkWebhookUrl(guard, 'ftp://public.test/')).rejects.toThrow('The scheme ftp: is not allowed; use http or https.');
  });
});

describe('signatures', () => {
  const secret = 'whsec_test';
  const body = '{"id":"d1"}';
  const now = new Date('2026-01-01T00:00:00Z');
  const ts = now.getTime() / 1000;

  it('verifies what it signed, and nothing else', () => {
    const signature = sign(secret, ts, body);
    expect(signature).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verify(secret, { timestamp: String(ts), signature }, body, now)).toBe(true);
    expect(verify('other', { timestamp: String(ts), signature }, body, now)).toBe(false);
    expect(verify(secret, { timestamp: String(ts), signature }, `${body} `, now)).toBe(false);
    expect(verify(secret, { timestamp: String(ts + 1), signature }, body, now)).toBe(false);
    expect(verify(secret, { timestamp: String(ts), signature: undefined }, body, now)).toBe(false);
  });

  it('refuses timestamps outside the tolerance (replays)', () => {
    const old = ts - 301;
    expect(verify(secret, { timestamp: String(old), signature: sign(secret, old, body) }, body, now)).toBe(false);
  });
});

describe('delivery planning', () => {
  const endpoint = (id: string, eventTypes: WebhookEndpointRecord['eventTypes']): WebhookEndpointRecord => ({
    id,
    orgId: 'org',
    url: 'https://example.com/',
    eventTypes,
    secret: 's',
    createdAt: new Date(0),
  });
  const event = (status: TaskStatusChangedPayload['status']): EventEnvelope<TaskStatusChangedPayload> => ({
    id: 'ev1',
    type: 'task.status-changed',
    key: 't1',
    occurred_at: '2026-01-01T00:00:00.000Z',
    org_id: 'org',
    payload: { task_id: 't1', index_id: 'i1', video_id: 'v1', status, previous_status: 'indexing', failure: null },
  });

  it.each([
    ['indexing', ['index.task.status_changed']],
    ['ready', ['index.task.status_changed', 'index.task.ready']],
    ['failed', ['index.task.status_changed', 'index.task.failed']],
  ])('a change to %s produces %j', (status, types) => {
    expect(webhookEventsFor(status)).toEqual(types);
  });

  it('plans one delivery per endpoint and registered type, with the body receivers get', () => {
    const plans = planDeliveries(
      event('ready'),
      [
        endpoint('e1', ['index.task.ready']),
        endpoint('e2', ['index.task.failed']),
        endpoint('e3', ['index.task.ready', 'index.task.status_changed']),
      ],
      new Date(0),
    );
    expect(plans.map((p) => `${p.endpointId}:${p.eventType}`)).toEqual([
      'e1:index.task.ready',
      'e3:index.task.status_changed',
      'e3:index.task.ready',
    ]);
    expect(JSON.parse(plans[0]!.body)).toEqual({
      id: plans[0]!.id,
      type: 'index.task.ready',
      created_at: '2026-01-01T00:00:00.000Z',
      data: { task_id: 't1', index_id: 'i1', video_id: 'v1', status: 'ready', previous_status: 'indexing', failure: null },
    });
  });

  it('plans analyze.task.ready / analyze.task.failed for an analysis task that ended, for endpoints that registered them', () => {
    const endpoints = [
      endpoint('e1', ['index.task.ready', 'index.task.failed']),
      endpoint('e2', ['analyze.task.ready', 'analyze.task.failed']),
    ];
    const ready = analyzeTaskStatusChanged('o1', { task_id: 't9', status: 'ready', custom_id: 'c-1', batch_id: null, message: null });
    const plans = planAnalyzeTaskDeliveries(ready, endpoints, new Date(0));
    expect(plans.map((p) => `${p.endpointId}:${p.eventType}:${p.eventId}`)).toEqual([`e2:analyze.task.ready:${ready.id}`]);
    expect(JSON.parse(plans[0]!.body)).toEqual({
      id: plans[0]!.id,
      type: 'analyze.task.ready',
      created_at: ready.occurred_at,
      data: { task_id: 't9', custom_id: 'c-1', batch_id: null, status: 'ready', error: null },
    });
    const failed = analyzeTaskStatusChanged('o1', {
      task_id: 't9',
      status: 'failed',
      custom_id: null,
      batch_id: 'b1',
      message: 'No engine.',
    });
    const [plan] = planAnalyzeTaskDeliveries(failed, endpoints, new Date(0));
    expect(JSON.parse(plan!.body)).toMatchObject({
      type: 'analyze.task.failed',
      data: { batch_id: 'b1', error: { message: 'No engine.' } },
    });
  });

  it('defaults and validates event types', () => {
    expect(normalizeEventTypes([])).toEqual(['index.task.ready', 'index.task.failed']);
    expect(normalizeEventTypes(['index.task.failed', 'index.task.failed'])).toEqual(['index.task.failed']);
    expect(() => normalizeEventTypes(['vus.task.status-changed'])).toThrow('Unknown event type vus.task.status-changed');
  });
});

describe('retry schedule', () => {
  const options = { maxAttempts: 4, retryBaseMs: 1000, maxDelayMs: 5000 };
  const now = new ManualClock('2026-01-01T00:00:00Z').now();
  it.each([
    [1, 0, 500],
    [1, 1, 1000],
    [2, 1, 2000],
    [3, 1, 4000],
  ])('after attempt %i (random %d) waits %i ms', (attempts, random, ms) => {
    expect(retryAt(now, attempts, options.maxAttempts, webhookRetry(options), () => random)!.getTime() - now.getTime()).toBe(ms);
  });
  it('gives up after the last attempt', () => {
    expect(retryAt(now, 4, options.maxAttempts, webhookRetry(options))).toBeNull();
  });
});
