import { createLogger, newId } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { callUnary, createClient, loadProto, type OutgoingContext } from '@vus/grpc';
import type { CreateEntitiesResponse } from '@vus/grpc/types/task/v1/CreateEntitiesResponse';
import type { Entity } from '@vus/grpc/types/task/v1/Entity';
import type { EntityCollection } from '@vus/grpc/types/task/v1/EntityCollection';
import type { ListEntitiesResponse } from '@vus/grpc/types/task/v1/ListEntitiesResponse';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import { codeOf } from '@vus/testing';
import { startTaskService, type RunningTaskService } from '../src/main';

/** The entity RPCs through task-service's gRPC server: wiring, proto3 optional fields and metadata values. */
describe('entity RPCs', () => {
  let database: ThrowawayDatabase;
  let service: RunningTaskService;
  let client: TaskServiceClient;
  const orgId = newId();
  const ctx = (org = orgId): OutgoingContext => ({ orgId: org, requestId: 'test', deadline: new Date(Date.now() + 10_000) });

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    service = await startTaskService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: database.url },
      logger: createLogger({ service: 'test', level: 'silent' }),
      indexServiceAddress: '127.0.0.1:1',
    });
    client = createClient(loadProto().proto.vus.task.v1.TaskService, service.address);
  });
  afterAll(async () => {
    client.close();
    await service.stop();
    await database.drop();
  });

  it('creates a collection and an entity, updates only the fields sent, and lists by asset', async () => {
    const assetId = newId();
    await database.db.query(
      `INSERT INTO assets (id, org_id, method, status, filename, file_type, created_at, updated_at)
       VALUES ($1, $2, 'direct', 'ready', 'face.jpg', 'image', now(), now())`,
      [assetId, orgId],
    );
    const collection = await callUnary<EntityCollection>(
      (md, opts, cb) => client.CreateEntityCollection({ name: 'People', description: 'known faces' }, md, opts, cb),
      ctx(),
    );
    const renamed = await callUnary<EntityCollection>(
      (md, opts, cb) => client.UpdateEntityCollection({ entity_collection_id: collection.id, name: 'Faces' }, md, opts, cb),
      ctx(),
    );
    expect(renamed).toMatchObject({ name: 'Faces', description: 'known faces' });

    const entity = await callUnary<Entity>(
      (md, opts, cb) =>
        client.CreateEntity(
          {
            entity_collection_id: collection.id,
            entity: { name: 'Ada', asset_ids: [assetId], metadata: { team: { number_value: 42 }, lead: { bool_value: true } } },
          },
          md,
          opts,
          cb,
        ),
      ctx(),
    );
    expect(entity).toMatchObject({ name: 'Ada', status: 'ready', asset_ids: [assetId], entity_collection_id: collection.id });
    expect(entity.metadata.team?.number_value).toBe(42);

    const kept = await callUnary<Entity>(
      (md, opts, cb) =>
        client.UpdateEntity({ entity_collection_id: collection.id, entity_id: entity.id, description: 'first' }, md, opts, cb),
      ctx(),
    );
    expect(kept).toMatchObject({ name: 'Ada', description: 'first' });
    expect(kept.metadata.lead?.bool_value).toBe(true);

    const bulk = await callUnary<CreateEntitiesResponse>(
      (md, opts, cb) =>
        client.CreateEntities(
          {
            entity_collection_id: collection.id,
            entities: [
              { name: 'Bo', asset_ids: [assetId] },
              { name: 'Cy', asset_ids: [] },
            ],
          },
          md,
          opts,
          cb,
        ),
      ctx(),
    );
    expect(bulk.entities.map((e) => e.name)).toEqual(['Bo']);
    expect(bulk.errors).toMatchObject([{ entity_index: 1, entity_name: 'Cy' }]);

    const byAsset = await callUnary<ListEntitiesResponse>(
      (md, opts, cb) => client.ListEntitiesByAsset({ asset_id: assetId }, md, opts, cb),
      ctx(),
    );
    expect(byAsset.data.map((e) => e.name).sort()).toEqual(['Ada', 'Bo']);
    expect(byAsset.page_info?.total_results).toBe(2);

    expect(
      await codeOf(
        callUnary<Entity>(
          (md, opts, cb) => client.GetEntity({ entity_collection_id: collection.id, entity_id: entity.id }, md, opts, cb),
          ctx(newId()),
        ),
      ),
    ).toBe('resource_not_exist');
  });
});
