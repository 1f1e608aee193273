import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ApiError, createLogger } from '@vus/core';
import type { IndexServiceClient, IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import {
  callUnary,
  checkHealth,
  createClient,
  implement,
  INTERNAL_AUTH_KEY,
  internalSecret,
  loadProto,
  requireOrg,
  startGrpcServer,
  type RunningGrpcServer,
} from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });
const NAME = 'vus.index.v1.IndexService';

describe('startGrpcServer + callUnary', () => {
  let server: RunningGrpcServer;
  let client: IndexServiceClient;
  const seen: { orgId?: string; requestId?: string; deadline?: Date }[] = [];

  beforeAll(async () => {
    const implementation = implement<IndexServiceHandlers>(
      {
        async GetIndex(request, ctx) {
          seen.push({ orgId: ctx.orgId, requestId: ctx.requestId, deadline: ctx.deadline });
          requireOrg(ctx);
          if (request.index_id === 'missing') throw new ApiError('resource_not_exist', 'Index with id missing does not exist.');
          if (request.index_id === 'crash') throw new Error('boom');
          return { id: request.index_id, name: 'n' };
        },
      },
      logger,
    );
    server = await startGrpcServer({
      bind: '127.0.0.1:0',
      logger,
      reflection: true,
      services: [{ name: NAME, definition: loadProto().proto.vus.index.v1.IndexService.service, implementation }],
    });
    client = createClient(loadProto().proto.vus.index.v1.IndexService, server.address);
  });

  afterAll(async () => {
    client.close();
    await server.stop();
  });

  const get = (id: string, orgId?: string) =>
    callUnary<{ id: string }>((md, opts, cb) => client.GetIndex({ index_id: id }, md, opts, cb), {
      orgId,
      requestId: 'req-1',
      deadline: new Date(Date.now() + 5000),
    });

  it('carries org, request id and deadline to the handler', async () => {
    await expect(get('abc', '6528dde58f9cd95a98cbd075')).resolves.toMatchObject({ id: 'abc' });
    const last = seen.at(-1)!;
    expect(last.orgId).toBe('6528dde58f9cd95a98cbd075');
    expect(last.requestId).toBe('req-1');
    expect(last.deadline!.getTime()).toBeGreaterThan(Date.now());
  });

  it('returns ApiErrors with their code', async () => {
    await expect(get('missing', '6528dde58f9cd95a98cbd075')).rejects.toMatchObject({ code: 'resource_not_exist' });
    await expect(get('abc')).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(get('crash', '6528dde58f9cd95a98cbd075')).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('answers UNIMPLEMENTED for RPCs without a handler', async () => {
    await expect(callUnary((md, opts, cb) => client.ListVideos({ index_id: 'x' }, md, opts, cb), {})).rejects.toMatchObject({
      code: 'not_implemented',
    });
  });

  it('reports readiness per service and liveness for the server through the standard service', async () => {
    expect(await checkHealth(server.address, NAME)).toBe(false);
    expect(await checkHealth(server.address, '')).toBe(true);
    server.setServing(true);
    expect(await checkHealth(server.address, NAME)).toBe(true);
    server.setServing(false);
    expect(await checkHealth(server.address, NAME)).toBe(false);
    expect(await checkHealth(server.address, '')).toBe(true);
    server.setServing(true);
    expect(await checkHealth('127.0.0.1:1', NAME, 500)).toBe(false);
  });

  it('fails fast with service_unavailable when nothing listens', async () => {
    const dead: IndexServiceClient = createClient(loadProto().proto.vus.index.v1.IndexService, '127.0.0.1:1');
    await expect(
      callUnary((md, opts, cb) => dead.GetIndex({ index_id: 'x' }, md, opts, cb), { deadline: new Date(Date.now() + 2000) }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/service_unavailable|deadline_exceeded/) });
    dead.close();
  });

  it('lists its services through reflection when configured', async () => {
    const protoFile = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
    const definition = protoLoader.loadSync(protoFile, { keepCase: true, oneofs: true });
    const Reflection = (grpc.loadPackageDefinition(definition) as any).grpc.reflection.v1.ServerReflection;
    const reflection = new Reflection(server.address, grpc.credentials.createInsecure());
    const names = await new Promise<string[]>((resolve, reject) => {
      // Behind the internal secret like every other service (grpcurl -H 'vus-internal-auth: …').
      const metadata = new grpc.Metadata();
      metadata.set(INTERNAL_AUTH_KEY, internalSecret());
      const stream = reflection.ServerReflectionInfo(metadata);
      stream.on('data', (response: { list_services_response?: { service: { name: string }[] } }) => {
        resolve(response.list_services_response?.service.map((s) => s.name) ?? []);
        stream.end();
      });
      stream.on('error', reject);
      stream.write({ list_services: '' });
    });
    reflection.close();
    expect(names).toEqual(expect.arrayContaining([NAME, 'vus.task.v1.TaskService']));
  });
});
