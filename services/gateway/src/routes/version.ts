import type { RequestHandler, Response } from 'express';
import { locals } from '../http/context';
import type { VersionAdapter } from '../versions';

/** What a version's router records about each request it takes, beside the request context. */
interface VersionLocals {
  version?: VersionAdapter;
}

/**
 * The first middleware of a version's router (app.ts): the request is served as `version`, and its
 * errors are written in that version's form.
 */
export function servedAs(version: VersionAdapter): RequestHandler {
  return (_req, res, next) => {
    (res.locals as VersionLocals).version = version;
    locals(res).presentError = (error) => version.presentError(error);
    next();
  };
}

/** The adapter of the version whose router took the request (set by servedAs). */
export function versionOf(res: Response): VersionAdapter {
  return (res.locals as VersionLocals).version!;
}
