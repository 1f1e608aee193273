import { createLogger, withCaller } from '@vus/core';
import type { IndexServiceClient, IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import {
  callUnary,
  createClient,
  implement,
  inheritCaller,
  loadProto,
  startGrpcServer,
  type CallContext,
  type RunningGrpcServer,
} from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });
const ORG = '6528dde58f9cd95a98cbd075';
const indexService = () => loadProto().proto.vus.index.v1.IndexService;

describe('caller context across hops', () => {
  describe('inheritCaller', () => {
    const early = new Date('2030-01-01T00:00:10Z');
    const late = new Date('2030-01-01T00:00:20Z');
    it.each([
      ['no caller: the context as given', undefined, { orgId: ORG, deadline: late }, { orgId: ORG, deadline: late }],
      [
        'the caller fills what is missing',
        { requestId: 'r1', deadline: early, traceparent: 't' },
        { orgId: ORG },
        { orgId: ORG, requestId: 'r1', deadline: early, traceparent: 't' },
      ],
      [
        "a later deadline is cut to the caller's",
        { requestId: 'r1', deadline: early },
        { deadline: late },
        { requestId: 'r1', deadline: early },
      ],
      [
        'an earlier deadline of its own stays',
        { requestId: 'r1', deadline: late },
        { deadline: early },
        { requestId: 'r1', deadline: early },
      ],
      ['its own request id wins', { requestId: 'r1' }, { requestId: 'r2' }, { requestId: 'r2' }],
    ])('%s', (_, caller, ctx, expected) => {
      const outgoing = caller ? withCaller(caller, () => inheritCaller(ctx)) : inheritCaller(ctx);
      expect(outgoing).toMatchObject(expected);
    });
  });

  // gateway -> A -> B: A's handler calls B without passing anything on but the organization.
  describe('a chain of calls', () => {
    let a: RunningGrpcServer;
    let b: RunningGrpcServer;
    let toA: IndexServiceClient;
    let toB: IndexServiceClient;
    let seenByB: CallContext | undefined;

    beforeAll(async () => {
      b = await startGrpcServer({
        bind: '127.0.0.1:0',
        logger,
        services: [
          {
            name: 'b',
            definition: indexService().service,
            implementation: implement<IndexServiceHandlers>(
              {
                async GetIndex(request, ctx) {
                  seenByB = ctx;
                  return { id: request.index_id, name: 'from b' };
                },
              },
              logger,
            ),
          },
        ],
      });
      toB = createClient(indexService(), b.address);
      a = await startGrpcServer({
        bind: '127.0.0.1:0',
        logger,
        services: [
          {
            name: 'a',
            definition: indexService().service,
            implementation: implement<IndexServiceHandlers>(
              {
                GetIndex: (request, ctx) =>
                  // A's own default timeout (10 s) is longer than the gateway's deadline.
                  callUnary((md, opts, cb) => toB.GetIndex(request, md, opts, cb), { orgId: ctx.orgId }),
              },
              logger,
            ),
          },
        ],
      });
      toA = createClient(indexService(), a.address);
    });

    afterAll(async () => {
      toA.close();
      toB.close();
      await a.stop();
      await b.stop();
    });

    it("B sees the gateway's request id and a deadline no later than the gateway's", async () => {
      const gatewayDeadline = new Date(Date.now() + 3000);
      const answer = await callUnary<{ name: string }>((md, opts, cb) => toA.GetIndex({ index_id: 'i' }, md, opts, cb), {
        orgId: ORG,
        requestId: 'req-from-gateway',
        deadline: gatewayDeadline,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      });
      expect(answer.name).toBe('from b');
      expect(seenByB?.requestId).toBe('req-from-gateway');
      expect(seenByB?.orgId).toBe(ORG);
      expect(seenByB?.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
      expect(seenByB?.deadline).toBeDefined();
      expect(seenByB!.deadline!.getTime()).toBeLessThanOrEqual(gatewayDeadline.getTime());
    });
  });
  // The gateway's client went away: aborting the outgoing call's signal cancels it, and the
  // handler's ctx.signal tells it to stop.
  describe('cancellation', () => {
    let server: RunningGrpcServer;
    let client: IndexServiceClient;
    let handlerSignal: AbortSignal | undefined;
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));

    beforeAll(async () => {
      server = await startGrpcServer({
        bind: '127.0.0.1:0',
        logger,
        services: [
          {
            name: 'slow',
            definition: indexService().service,
            implementation: implement<IndexServiceHandlers>(
              {
                async GetIndex(request, ctx) {
                  handlerSignal = ctx.signal;
                  started();
                  // Works until cancelled (a generous bound keeps a broken test from hanging).
                  await new Promise((resolve) => {
                    ctx.signal.addEventListener('abort', resolve);
                    setTimeout(resolve, 20_000).unref();
                  });
                  return { id: request.index_id, name: 'too late' };
                },
              },
              logger,
            ),
          },
        ],
      });
      client = createClient(indexService(), server.address);
    });

    afterAll(async () => {
      client.close();
      await server.stop();
    });

    it("aborting the caller's signal cancels the call and aborts the handler's ctx.signal", async () => {
      const leaving = new AbortController();
      const call = callUnary((md, opts, cb) => client.GetIndex({ index_id: 'i' }, md, opts, cb), {
        orgId: ORG,
        deadline: new Date(Date.now() + 30_000),
        signal: leaving.signal,
      });
      await handlerStarted;
      expect(handlerSignal?.aborted).toBe(false);
      leaving.abort();
      await expect(call).rejects.toMatchObject({ code: 'request_canceled_or_timed_out' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(handlerSignal?.aborted).toBe(true);
    });
  });
});
