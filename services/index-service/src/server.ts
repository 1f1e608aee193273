import { errors, isId, pageInfo, pageOffset, parseInput, resolvePage, type Logger } from '@vus/core';
import { fromTimestamp, implement, optionalTimestamp, requireOrg, toTimestamp } from '@vus/grpc';
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Engine__Input } from '@vus/grpc/types/index/v1/Engine';
import type { Index__Input } from '@vus/grpc/types/index/v1/Index';
import type { IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import type { TimeRange } from '@vus/grpc/types/common/v1/TimeRange';
import { z } from 'zod';
import { CANONICAL_OPTIONS, ENGINES, findEngine, type EngineSpec } from './engines';
import type { IndexRecord, IndexService, TimeBounds } from './indexes';

// proto3 has no required fields and the gateway is not the only caller: validate here too.
const modelSchema = z.object({ name: z.string().min(1), options: z.array(z.enum(CANONICAL_OPTIONS)) });
const createSchema = z.object({ name: z.string(), models: z.array(modelSchema), addons: z.array(z.string()) });
const listSchema = z.object({
  page: z.object({
    page: z.number().int().min(0),
    page_limit: z.number().int().min(0),
    sort_by: z.enum(['', 'created_at', 'updated_at']),
    sort_option: z.enum(['', 'asc', 'desc']),
  }).nullable(),
  ids: z.array(z.string()),
  name: z.string(),
  options: z.array(z.enum(CANONICAL_OPTIONS)),
  family: z.enum(['', 'marengo', 'pegasus']),
  model_name: z.string(),
});

function indexId(raw: string): string {
  // A malformed id cannot name anything: same answer as an unknown one.
  if (!isId(raw)) throw errors.notFound('Index', raw);
  return raw;
}

function timeBounds(range: TimeRange | null): TimeBounds | undefined {
  if (!range) return undefined;
  return { gte: fromTimestamp(range.gte), lte: fromTimestamp(range.lte), gt: fromTimestamp(range.gt), lt: fromTimestamp(range.lt) };
}

export function toProtoIndex(index: IndexRecord): Index__Input {
  return {
    id: index.id,
    name: index.name,
    models: index.models,
    addons: index.addons,
    video_count: index.videoCount,
    total_duration: index.totalDuration,
    created_at: toTimestamp(index.createdAt),
    updated_at: toTimestamp(index.updatedAt),
    expires_at: optionalTimestamp(index.expiresAt),
  };
}

export function toProtoEngine(engine: EngineSpec): Engine__Input {
  return {
    id: engine.id,
    family: engine.family,
    allowed_options: [...engine.allowedOptions],
    ready: true,
    finetune: false,
    author: 'twelve_labs',
    created_at: toTimestamp(engine.releasedAt),
    updated_at: toTimestamp(engine.releasedAt),
    api_versions: [...engine.apiVersions],
  };
}

export function indexServiceImplementation(indexes: IndexService, logger: Logger): UntypedServiceImplementation {
  return implement<IndexServiceHandlers>(
    {
      async CreateIndex(request, ctx) {
        const input = parseInput(createSchema, request);
        return toProtoIndex(await indexes.create(requireOrg(ctx), input));
      },
      async GetIndex(request, ctx) {
        return toProtoIndex(await indexes.get(requireOrg(ctx), indexId(request.index_id)));
      },
      async ListIndexes(request, ctx) {
        const input = parseInput(listSchema, request);
        const result = await indexes.list(
          requireOrg(ctx),
          {
            ids: input.ids.length ? input.ids : undefined,
            name: input.name || undefined,
            options: input.options,
            family: input.family || undefined,
            modelName: input.model_name || undefined,
            createdAt: timeBounds(request.created_at),
            updatedAt: timeBounds(request.updated_at),
          },
          { by: input.page?.sort_by || 'created_at', order: input.page?.sort_option || 'desc' },
          { page: input.page?.page, pageLimit: input.page?.page_limit },
        );
        return { data: result.data.map(toProtoIndex), page_info: result.pageInfo };
      },
      async UpdateIndex(request, ctx) {
        return toProtoIndex(await indexes.rename(requireOrg(ctx), indexId(request.index_id), request.name));
      },
      async DeleteIndex(request, ctx) {
        await indexes.delete(requireOrg(ctx), indexId(request.index_id));
        return {};
      },
      async ListEngines(request) {
        const page = resolvePage({ page: request.page?.page, pageLimit: request.page?.page_limit });
        const offset = pageOffset(page);
        return {
          data: ENGINES.slice(offset, offset + page.pageLimit).map(toProtoEngine),
          page_info: pageInfo(page, ENGINES.length),
        };
      },
      async GetEngine(request) {
        const engine = findEngine(request.engine_id);
        if (!engine) throw errors.notFound('Engine', request.engine_id);
        return toProtoEngine(engine);
      },
    },
    logger,
  );
}
