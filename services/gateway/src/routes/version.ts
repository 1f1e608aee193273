import type { Response } from 'express';
import { locals } from '../http/context';
import { adapterFor, type VersionAdapter } from '../versions';

/** The adapter of the version whose router took the request (app.ts sets the version). */
export function versionOf(res: Response): VersionAdapter {
  return adapterFor(locals(res).version!);
}
