import { z } from 'zod';
import type { VersionAdapter } from './adapter';
import { V1_OPTIONS } from './v1';
import { engineIdCreateSchema } from './v1.1';
import { createIndexSchema as v12CreateIndex } from './v1.2';
import { createIndexSchema as v13CreateIndex } from './v1.3';
import { V12_OPTIONS } from './options';

/**
 * The response shapes of what each adapter's functions present (API-CONTRACT §3, §5), as zod
 * schemas: the OpenAPI documents are generated from them (src/openapi/), and the tests parse the
 * adapters' output and recorded answers with them, so a shape and its documentation cannot part.
 * What an adapter says in data (field names, statuses, flags) the document reads from the adapter.
 */
export interface VersionSchemas {
  /** POST /indexes body: the very schema the adapter's parseCreate validates with (and an example for the docs). */
  createIndex: z.ZodType;
  /** What `indexes.presentModels` adds to an index. */
  indexModels: z.ZodRawShape;
  /** What `engines.presentFields` adds to an engine. */
  engineFields: z.ZodRawShape;
  /** What `videos.presentMetadata` gives a video. */
  videoMetadata: z.ZodRawShape;
  /** What `search.presentClipFields` adds to a clip. */
  clipFields: z.ZodRawShape;
  /** `presentError`'s body. */
  error: z.ZodObject;
}

const metadataValue = z.union([z.string(), z.number(), z.boolean()]);
const systemMetadata = z.object({
  filename: z.string(),
  duration: z.number(),
  fps: z.number(),
  width: z.int(),
  height: z.int(),
  size: z.int(),
});
const timedValue = z.object({ start: z.number(), end: z.number(), value: z.string() });
const confidence = z.enum(['high', 'medium', 'low', 'none']);
const clipMetadata = z
  .array(z.object({ type: z.string(), text: z.string().optional() }))
  .describe('What matched, per search option: the text for speech, on-screen text and logos.');

const codeAndMessage = z.object({
  code: z.string().describe('Machine-readable error code, e.g. parameter_invalid.'),
  message: z.string(),
  docs_url: z.string().optional(),
});

/** v1.1 and its revisions; v1 differs in options, clip fields and errors. */
const v11: VersionSchemas = {
  createIndex: engineIdCreateSchema(V12_OPTIONS).meta({
    examples: [
      {
        index_name: 'my videos',
        engine_id: 'marengo2.5',
        index_options: ['visual', 'conversation', 'text_in_video', 'logo'],
        addons: ['thumbnail'],
      },
    ],
  }),
  indexModels: { engine_id: z.string(), index_options: z.array(z.enum(V12_OPTIONS)) },
  engineFields: { allowed_index_options: z.array(z.string()) },
  // One object: the user's keys, video_title, then the six system fields.
  videoMetadata: { metadata: systemMetadata.extend({ video_title: z.string().optional() }).catchall(metadataValue) },
  clipFields: {
    metadata: clipMetadata,
    module_confidence: z.record(z.string(), confidence).describe('Each search option that matched, with its confidence.'),
  },
  error: codeAndMessage,
};

const v1: VersionSchemas = {
  ...v11,
  createIndex: engineIdCreateSchema(V1_OPTIONS).meta({
    examples: [{ index_name: 'my videos', engine_id: 'marengo2.5', index_options: ['visual', 'conversation', 'text_in_video'] }],
  }),
  clipFields: { metadata: clipMetadata },
  error: z.object({
    error_code: z
      .union([z.int(), z.string()])
      .describe(
        'v1 numbers: 101 key, 102 missing, 103 unknown, 104 invalid, 201 not found, 401 broken video, 501 search option; a code otherwise.',
      ),
    message: z.string(),
  }),
};

const v12: VersionSchemas = {
  ...v11,
  createIndex: v12CreateIndex.meta({
    examples: [
      {
        index_name: 'my videos',
        engines: [
          { engine_name: 'marengo2.7', engine_options: ['visual', 'conversation', 'text_in_video', 'logo'] },
          { engine_name: 'pegasus1.2', engine_options: ['visual', 'conversation'] },
        ],
        addons: ['thumbnail'],
      },
    ],
  }),
  indexModels: {
    engines: z.array(z.object({ engine_name: z.string(), engine_options: z.array(z.enum(V12_OPTIONS)), addons: z.array(z.string()) })),
  },
  engineFields: { allowed_engine_options: z.array(z.string()) },
  clipFields: { metadata: clipMetadata, modules: z.array(z.object({ type: z.string(), confidence })) },
};

const v13: VersionSchemas = {
  createIndex: v13CreateIndex.meta({
    examples: [
      {
        index_name: 'my videos',
        models: [
          { model_name: 'marengo3.0', model_options: ['visual', 'audio'] },
          { model_name: 'pegasus1.2', model_options: ['visual', 'audio'] },
        ],
        addons: ['thumbnail'],
      },
    ],
  }),
  indexModels: { models: z.array(z.object({ model_name: z.string(), model_options: z.array(z.enum(['visual', 'audio'])) })) },
  engineFields: { model_name: z.string(), model_family: z.string(), allowed_model_options: z.array(z.enum(['visual', 'audio'])) },
  videoMetadata: {
    system_metadata: systemMetadata,
    user_metadata: z.record(z.string(), metadataValue),
    transcription: z.array(timedValue).optional().describe('With ?transcription=true.'),
  },
  clipFields: { rank: z.number(), transcription: z.string().optional() },
  error: codeAndMessage,
};

const SCHEMAS: Readonly<Record<string, VersionSchemas>> = { v1, 'v1.1': v11, 'v1.2': v12, 'v1.3': v13 };

/** The schemas of a version (a revision has its version's). */
export function schemasOf(version: VersionAdapter): VersionSchemas {
  const schemas = SCHEMAS[version.revisionOf ?? version.name];
  if (!schemas) throw new Error(`No response schemas for ${version.name}: add them to versions/schemas.ts`);
  return schemas;
}
