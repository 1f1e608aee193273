/**
 * Caller context across the stack: the gateway's request id and deadline travel through
 * task-service (A) to index-service (B), although task-service's own code passes neither on —
 * B sees the request id and a deadline no later than the gateway's.
 */
import { createLogger } from '@vus/core';
import { implement, serviceDefinition, startGrpcServer, type CallContext, type RunningGrpcServer } from '@vus/grpc';
import type { IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import { startTaskService, type RunningTaskService } from '@vus/task-service';
import request from 'supertest';
import { startGateway, type RunningGateway } from '../src/main';

const logger = createLogger({ service: 'test', level: 'silent' });
/** Shorter than task-service's own deadline for its index lookups (10 s), so that inheriting shows. */
const GATEWAY_TIMEOUT_MS = 3_000;
const INDEX_ID = '6528dde58f9cd95a98cbd0aa';

describe('caller context: gateway -> task-service -> index-service', () => {
  let indexB: RunningGrpcServer;
  let taskA: RunningTaskService;
  let gateway: RunningGateway;
  const seenByB: CallContext[] = [];

  beforeAll(async () => {
    indexB = await startGrpcServer({
      bind: '127.0.0.1:0',
      logger,
      services: [
        {
          name: 'index-b',
          definition: serviceDefinition('vus.index.v1.IndexService'),
          implementation: implement<IndexServiceHandlers>(
            {
              async GetIndex(req, ctx) {
                seenByB.push(ctx);
                return { id: req.index_id, name: 'recorded' };
              },
            },
            logger,
          ),
        },
      ],
    });
    taskA = await startTaskService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: 'memory://' },
      logger,
      indexServiceAddress: indexB.address,
    });
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'pglite', dataDir: 'memory://' },
      indexServiceAddress: indexB.address,
      taskServiceAddress: taskA.address,
      requestTimeoutMs: GATEWAY_TIMEOUT_MS,
      logger,
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await taskA?.stop();
    await indexB?.stop();
  });

  it("B sees the request id the client sent and a deadline no later than the gateway's", async () => {
    const org = await gateway.keys.createOrganization('context');
    const key = (await gateway.keys.createKey(org.id, 'test')).secret;
    const res = await request(gateway.url)
      .get(`/v1.2/tasks/status?index_id=${INDEX_ID}`)
      .set('x-api-key', key)
      .set('x-request-id', 'chain-req-1');
    const answered = Date.now();
    expect(res.status).toBe(200);
    expect(seenByB).toHaveLength(1);
    expect(seenByB[0]!.requestId).toBe('chain-req-1');
    expect(seenByB[0]!.orgId).toBe(org.id);
    // The gateway set its deadline before it answered: at most answered + its timeout.
    expect(seenByB[0]!.deadline!.getTime()).toBeLessThanOrEqual(answered + GATEWAY_TIMEOUT_MS);
  });
});
