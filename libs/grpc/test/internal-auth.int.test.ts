import * as grpc from '@grpc/grpc-js';
import { createLogger } from '@vus/core';
import type { IndexServiceClient, IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import {
  callUnary,
  checkHealth,
  createClient,
  implement,
  INTERNAL_AUTH_KEY,
  loadProto,
  ORG_ID_KEY,
  peerHealth,
  requireOrg,
  startGrpcServer,
  type RunningGrpcServer,
} from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });
const NAME = 'vus.index.v1.IndexService';
const ORG = '6528dde58f9cd95a98cbd075';
const SECRET = 'a-shared-secret-of-the-deployment-0123456789';

/** A raw grpc-js call, as anyone on the network could make it: whatever metadata it likes. */
function rawGetIndex(client: IndexServiceClient, metadata: grpc.Metadata): Promise<grpc.status> {
  return new Promise((resolve) => {
    client.GetIndex({ index_id: 'abc' }, metadata, { deadline: new Date(Date.now() + 5000) }, (error) =>
      resolve(error ? error.code : grpc.status.OK),
    );
  });
}

describe('internal gRPC authentication', () => {
  let server: RunningGrpcServer;
  let client: IndexServiceClient;
  const handled: string[] = [];

  beforeAll(async () => {
    const implementation = implement<IndexServiceHandlers>(
      {
        async GetIndex(request, ctx) {
          handled.push(requireOrg(ctx));
          return { id: request.index_id, name: 'n' };
        },
      },
      logger,
    );
    server = await startGrpcServer({
      bind: '127.0.0.1:0',
      logger,
      internalSecret: SECRET,
      services: [{ name: NAME, definition: loadProto().proto.vus.index.v1.IndexService.service, implementation }],
    });
    server.setServing(true);
    client = createClient(loadProto().proto.vus.index.v1.IndexService, server.address);
  });

  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('refuses a caller without the secret that sets an organization id in metadata', async () => {
    const metadata = new grpc.Metadata();
    metadata.set(ORG_ID_KEY, ORG);
    expect(await rawGetIndex(client, metadata)).toBe(grpc.status.UNAUTHENTICATED);
    expect(handled).toEqual([]);
  });

  it('refuses a wrong secret, and one that differs only in its last character', async () => {
    for (const secret of ['guess', `${SECRET.slice(0, -1)}X`, '']) {
      const metadata = new grpc.Metadata();
      metadata.set(ORG_ID_KEY, ORG);
      metadata.set(INTERNAL_AUTH_KEY, secret);
      expect(await rawGetIndex(client, metadata)).toBe(grpc.status.UNAUTHENTICATED);
    }
    expect(handled).toEqual([]);
  });

  it('serves a caller with the secret', async () => {
    const metadata = new grpc.Metadata();
    metadata.set(ORG_ID_KEY, ORG);
    metadata.set(INTERNAL_AUTH_KEY, SECRET);
    expect(await rawGetIndex(client, metadata)).toBe(grpc.status.OK);
    expect(handled).toEqual([ORG]);
  });

  it('callUnary sends the secret it is given', async () => {
    await expect(
      callUnary((md, opts, cb) => client.GetIndex({ index_id: 'x' }, md, opts, cb), { orgId: ORG }, undefined, SECRET),
    ).resolves.toMatchObject({ id: 'x' });
    await expect(
      callUnary((md, opts, cb) => client.GetIndex({ index_id: 'x' }, md, opts, cb), { orgId: ORG }, undefined, 'other'),
    ).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });

  it('leaves the health service open (probes carry no secret)', async () => {
    expect(await checkHealth(server.address, NAME)).toBe(true);
  });

  it.each([
    ['no secret (a probe)', undefined, 'serving'],
    ['the secret', SECRET, 'serving'],
    ['a wrong secret', 'another-deployments-secret-0123456789abcdef', 'refused'],
    ['an empty secret', '', 'refused'],
  ] as const)('answers a health check that presents %s: %s', async (_, secret, expected) => {
    expect(await peerHealth(server.address, NAME, { secret })).toBe(expected);
    expect(await peerHealth(server.address, '', { secret })).toBe(expected);
  });

  it('tells a refused health check from an unreachable peer', async () => {
    expect(await peerHealth('127.0.0.1:1', NAME, { secret: 'x', timeoutMs: 500 })).toBe('unreachable');
  });

  it('serves no reflection unless asked to', async () => {
    const reflection = new grpc.Client(server.address, grpc.credentials.createInsecure());
    const status = await new Promise<grpc.status>((resolve) => {
      const call = reflection.makeBidiStreamRequest(
        '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
        (value: Buffer) => value,
        (value: Buffer) => value,
      );
      call.on('error', (error: grpc.ServiceError) => resolve(error.code));
      call.on('data', () => resolve(grpc.status.OK));
      call.write(Buffer.from([0x3a, 0x00])); // list_services: ""
    });
    reflection.close();
    expect(status).toBe(grpc.status.UNIMPLEMENTED);
  });
});
