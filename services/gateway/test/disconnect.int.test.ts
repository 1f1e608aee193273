/**
 * A client that disconnects cancels the work it started (issue 28 item 7): the gateway cancels its
 * gRPC call, so the service's handler sees ctx.signal abort. Checked for a synchronous video
 * embedding and a classification against stand-in services that work until cancelled.
 */
import { createLogger } from '@vus/core';
import { implement, loadProto, startGrpcServer, type CallContext, type RunningGrpcServer } from '@vus/grpc';
import type { ClassifyServiceHandlers } from '@vus/grpc/types/classify/v1/ClassifyService';
import type { EmbedServiceHandlers } from '@vus/grpc/types/embed/v1/EmbedService';
import { request as httpRequest } from 'node:http';
import { startGateway, type RunningGateway } from '../src/main';

const logger = createLogger({ service: 'test', level: 'silent' });

/** A handler that works until its call is cancelled (or a generous bound passes), telling when it started and stopped. */
function untilCancelled() {
  const started: CallContext[] = [];
  const cancelled: CallContext[] = [];
  const handler = async (ctx: CallContext): Promise<never> => {
    started.push(ctx);
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => (cancelled.push(ctx), resolve()));
      setTimeout(resolve, 30_000).unref();
    });
    throw new Error('no answer');
  };
  return { handler, started, cancelled };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** POSTs `body` and closes the connection once `ready()` says the work started. */
async function postThenLeave(url: string, key: string, body: object, ready: () => boolean): Promise<void> {
  const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key } });
  req.on('error', () => undefined);
  req.end(JSON.stringify(body));
  for (let waited = 0; !ready() && waited < 20_000; waited += 25) await sleep(25);
  expect(ready()).toBe(true);
  req.destroy();
}

describe('a client that disconnects', () => {
  const embed = untilCancelled();
  const classify = untilCancelled();
  let services: RunningGrpcServer;
  let gateway: RunningGateway;
  let key: string;

  beforeAll(async () => {
    const proto = loadProto().proto.vus;
    services = await startGrpcServer({
      bind: '127.0.0.1:0',
      logger,
      services: [
        {
          name: 'vus.embed.v1.EmbedService',
          definition: proto.embed.v1.EmbedService.service,
          implementation: implement<EmbedServiceHandlers>({ CreateEmbedding: (_request, ctx) => embed.handler(ctx) }, logger),
        },
        {
          name: 'vus.classify.v1.ClassifyService',
          definition: proto.classify.v1.ClassifyService.service,
          implementation: implement<ClassifyServiceHandlers>({ ClassifyBulk: (_request, ctx) => classify.handler(ctx) }, logger),
        },
      ],
    });
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'pglite', dataDir: 'memory://' },
      indexServiceAddress: services.address,
      embedServiceAddress: services.address,
      classifyServiceAddress: services.address,
      logger,
    });
    const org = await gateway.keys.createOrganization('leaver');
    key = (await gateway.keys.createKey(org.id, 'test')).secret;
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await services?.stop(1000);
  });

  it('cancels its synchronous video embedding', async () => {
    await postThenLeave(
      `${gateway.url}/v1.3/embed-v2`,
      key,
      { input_type: 'video', model_name: 'marengo3.0', video: { media_source: { url: 'https://media.example.com/v.mp4' } } },
      () => embed.started.length === 1,
    );
    for (let waited = 0; embed.cancelled.length === 0 && waited < 10_000; waited += 25) await sleep(25);
    expect(embed.cancelled).toHaveLength(1);
  });

  it('cancels its classification', async () => {
    await postThenLeave(
      `${gateway.url}/v1.2/classify/bulk`,
      key,
      { index_id: '6528dde58f9cd95a98cbd075', options: ['visual'], classes: [{ name: 'dog', prompts: ['a dog'] }] },
      () => classify.started.length === 1,
    );
    for (let waited = 0; classify.cancelled.length === 0 && waited < 10_000; waited += 25) await sleep(25);
    expect(classify.cancelled).toHaveLength(1);
  });
});
