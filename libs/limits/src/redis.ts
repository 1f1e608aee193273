import { jitteredBackoff, type Logger } from '@vus/core';
import { createClient, type RedisClientType } from 'redis';

/**
 * A Redis client for counters that never makes a request wait for Redis: commands fail at once
 * while disconnected (no offline queue), and the client keeps reconnecting in the background.
 */
export function connectRedis(url: string, logger: Logger): RedisClientType {
  const client: RedisClientType = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => jitteredBackoff(100, 2_000, retries) },
  });
  let healthy = true;
  client.on('error', (error: Error) => {
    if (healthy) logger.warn({ err: error.message }, 'redis unavailable: rate limits are per process until it returns');
    healthy = false;
  });
  client.on('ready', () => {
    if (!healthy) logger.info('redis reconnected: rate limits are shared again');
    healthy = true;
  });
  client.connect().catch((error: unknown) => logger.warn({ err: String(error) }, 'redis connect failed; retrying'));
  return client;
}
