import { errors } from '@vus/core';
import type { Request, RequestHandler, Response } from 'express';
import { endpointOf } from '../endpoints/router';
import { categoriesOf } from './categories';

/**
 * The rate check of a request whose category its body tells (/embed-v2: `input_type`), made once:
 * before the body's media is read when the body parser asks (`beforeMedia`), else after the body
 * (`afterBody`). Media sits under the key its input type names (`video.media_source`,
 * `multi_input.media_sources`), so a body whose `input_type` comes after its media is checked in
 * that category; once the body is read it must count in the categories it was admitted in, or
 * it is refused (a text embedding with a video part must not spend video's quota for text's).
 */
export function bodyRateCheck(check: RequestHandler): {
  beforeMedia: (req: Request, res: Response, partial: Record<string, unknown>, path: readonly (string | number)[]) => Promise<void>;
  afterBody: RequestHandler;
} {
  const admittedEarly = new WeakMap<Request, string>();
  // A refusal before the body is read closes the connection once answered: the rest of the body is never read.
  const checkBeforeBody: RequestHandler = (req, res, next) =>
    check(req, res, (error?: unknown) => {
      if (error && !req.complete) res.set('Connection', 'close');
      next(error);
    });
  const categoriesKey = (req: Request, res: Response, body: unknown) => categoriesOf(endpointOf(res), body).join(',');
  return {
    beforeMedia: async (req, res, partial, path) => {
      if (admittedEarly.has(req)) return;
      const inputType = typeof partial.input_type === 'string' ? partial.input_type : path[0];
      const body = { ...partial, input_type: inputType };
      admittedEarly.set(req, categoriesKey(req, res, body));
      const parsed = req.body as unknown;
      req.body = body;
      try {
        // The check passes an ApiError (a refusal) or nothing.
        const refusal = await new Promise<unknown>((resolve) => checkBeforeBody(req, res, resolve));
        if (refusal) throw refusal as Error;
      } finally {
        req.body = parsed;
      }
    },
    afterBody: (req, res, next) => {
      const early = admittedEarly.get(req);
      if (early === undefined) return checkBeforeBody(req, res, next);
      if (early === categoriesKey(req, res, req.body)) return next();
      next(errors.invalid('input_type', 'It must name the part that holds the media (video, audio, image, text_image or multi_input).'));
    },
  };
}
