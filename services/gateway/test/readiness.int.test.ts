/**
 * /readyz's peer checks: a service that does not share the gateway's INTERNAL_GRPC_SECRET answers
 * every call with 503, so it is not ready, and the log says why once per change (not per probe).
 */
import { createLogger, type Logger } from '@vus/core';
import { internalSecret, loadProto, startGrpcServer, type RunningGrpcServer } from '@vus/grpc';
import { peersReady } from '../src/readiness';

const NAME = 'vus.index.v1.IndexService';

/** A stand-in index-service that expects `secret`: its health service is all /readyz asks. */
async function indexServiceExpecting(secret: string): Promise<RunningGrpcServer> {
  const server = await startGrpcServer({
    bind: '127.0.0.1:0',
    logger: createLogger({ service: 'test', level: 'silent' }),
    internalSecret: secret,
    services: [{ name: NAME, definition: loadProto().proto.vus.index.v1.IndexService.service, implementation: {} }],
  });
  server.setServing(true);
  return server;
}

/** A logger that keeps the messages of its error and info lines. */
function recordingLogger() {
  const lines: string[] = [];
  const logger = {
    error: (_: unknown, message: string) => lines.push(`error: ${message}`),
    info: (_: unknown, message: string) => lines.push(`info: ${message}`),
  } as unknown as Logger;
  return { logger, lines };
}

describe('peersReady', () => {
  const servers: RunningGrpcServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('is ready when the service shares the secret', async () => {
    const server = await indexServiceExpecting(internalSecret());
    servers.push(server);
    const { logger, lines } = recordingLogger();
    expect(await peersReady({ indexServiceAddress: server.address, logger })).toEqual({ 'index-service': true });
    expect(lines).toEqual([]);
  });

  it('is not ready when the service expects another secret, and logs it once', async () => {
    const server = await indexServiceExpecting('another-deployments-secret-0123456789abcdef');
    servers.push(server);
    const { logger, lines } = recordingLogger();
    for (let probe = 0; probe < 3; probe++) {
      expect(await peersReady({ indexServiceAddress: server.address, logger })).toEqual({ 'index-service': false });
    }
    expect(lines).toEqual([
      "error: index-service refuses this gateway's INTERNAL_GRPC_SECRET: every call to it answers 503 until every process has the same secret",
    ]);
  });

  it('checks only the services configured', async () => {
    const server = await indexServiceExpecting(internalSecret());
    servers.push(server);
    const { logger } = recordingLogger();
    const checks = await peersReady({ indexServiceAddress: server.address, searchServiceAddress: '127.0.0.1:1', logger });
    expect(checks).toEqual({ 'index-service': true, 'search-service': false });
  });
});
