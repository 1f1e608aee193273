import { z } from 'zod';
import { ok, type OperationDoc } from '../openapi/operation';
import { id, type VersionShapes } from '../openapi/shapes';
import { classifyFields } from './classify.schema';

/**
 * The OpenAPI operations of routes/classify.ts (Classification): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

/** Classify (API-CONTRACT §5.6): the body in the version's names, the answer for the shape it asks. */
const classifiedVideo = (classesKey: string) =>
  z.object({
    video_id: id,
    [classesKey]: z.array(
      z.object({
        name: z.string(),
        score: z.number(),
        duration_ratio: z.number(),
        detailed_scores: z.object({ max_score: z.number(), avg_score: z.number(), normalized_score: z.number() }).optional(),
        clips: z
          .array(
            z.object({
              start: z.number(),
              end: z.number(),
              score: z.number(),
              option: z.string(),
              prompt: z.string(),
              thumbnail_url: z.string().optional(),
            }),
          )
          .optional(),
      }),
    ),
  });
const classifyBody = ({ version }: VersionShapes, target: 'videos' | 'index') => {
  const shape = version.classify!;
  const classes = z.array(
    z.object({
      name: z.string(),
      prompts: z.array(z.string()),
      options: z.array(z.string()).optional(),
      conversation_option: z.string().optional(),
    }),
  );
  const videos = target === 'index' ? { index_id: id } : shape.videos === 'video_ids' ? { video_ids: z.array(id) } : { video_id: id };
  return classifyFields.extend({ ...videos, [shape.classesField]: classes, options: z.array(z.string()) });
};
const classifyPageOf = (s: VersionShapes, classesKey = 'classes') =>
  z.object({ data: z.array(classifiedVideo(classesKey)), page_info: s.searchPage.shape.page_info as z.ZodType });
const classifyAnswer = (s: VersionShapes) =>
  s.version.classify!.videos === 'video_id'
    ? z.union([classifiedVideo(s.version.classify!.classesField), classifyPageOf(s)])
    : classifyPageOf(s);

/** POST /classify */
export const classify: OperationDoc = (s) => ({
  summary: 'Classify videos into classes of prompts',
  description:
    'Each prompt is a search over the videos; a class scores 100 × (1 − Π(1 − best clip score per prompt / 100)). See README "Classification scoring".',
  tag: 'Classify',
  body: { json: classifyBody(s, 'videos'), required: true },
  responses: ok(classifyAnswer(s)),
});

/** POST /classify/bulk */
export const classifyBulk: OperationDoc = (s) => ({
  summary: 'Classify every video of an index',
  tag: 'Classify',
  body: { json: classifyBody(s, 'index'), required: true },
  responses: ok(classifyPageOf(s, s.version.classify!.classesField)),
});

/** GET /classify/{page_token} */
export const classifyPage: OperationDoc = (s) => ({
  summary: 'A later page of a classification',
  tag: 'Classify',
  responses: ok(classifyPageOf(s)),
});
