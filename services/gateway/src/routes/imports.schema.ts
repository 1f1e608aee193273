import { errors, parseInput } from '@vus/core';
import { checkHttpUrl } from '@vus/fetch';
import { z } from 'zod';
import { firstValue } from '../http/coerce';

const text = z.preprocess(firstValue, z.string({ error: 'expected a string' }).trim());

const YOUTUBE_HOSTS = new Set([
  'youtube.com',
  'www.youtube.com',
  'm.youtube.com',
  'music.youtube.com',
  'youtube-nocookie.com',
  'www.youtube-nocookie.com',
]);
const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;

/**
 * The video id of a YouTube URL (watch?v=, youtu.be/, shorts/, embed/, live/, v/), or undefined
 * when the URL is not an http(s) link to one YouTube video.
 */
export function youtubeVideoId(raw: string): string | undefined {
  const url = checkHttpUrl(raw);
  if (!(url instanceof URL)) return undefined;
  const host = url.hostname.toLowerCase();
  const segments = url.pathname.split('/').filter(Boolean);
  let id: string | null | undefined;
  if (host === 'youtu.be') id = segments.length === 1 ? segments[0] : undefined;
  else if (YOUTUBE_HOSTS.has(host)) {
    if (segments.length === 1 && segments[0] === 'watch') id = url.searchParams.get('v');
    else if (segments.length === 2 && ['shorts', 'embed', 'live', 'v'].includes(segments[0]!)) id = segments[1];
  }
  return id && YOUTUBE_ID.test(id) ? id : undefined;
}

export const externalProviderSchema = z.object({
  index_id: text.pipe(z.string().min(1, 'expected an index id')),
  url: text.pipe(z.string().min(1, 'expected a YouTube URL')),
});

export interface ExternalProviderRequest {
  indexId: string;
  url: string;
  youtubeId: string;
}

/** POST /tasks/external-provider (v1.2): JSON `{index_id, url}`, the URL a YouTube video's. */
export function parseExternalProvider(body: unknown): ExternalProviderRequest {
  const input = parseInput(externalProviderSchema, body);
  const youtubeId = youtubeVideoId(input.url);
  if (!youtubeId) {
    throw errors.invalid(
      'url',
      'It must be an http or https link to one YouTube video (https://www.youtube.com/watch?v=…, https://youtu.be/…).',
    );
  }
  return { indexId: input.index_id, url: input.url, youtubeId };
}

/** At most this many videos in one transfer file. */
export const MAX_TRANSFER_VIDEOS = 100;

const transferItem = z.object({
  index_id: z.string({ error: 'expected an index id' }).trim().min(1, 'expected an index id'),
  object: z.string({ error: 'expected the S3 URL of the video' }).trim().min(1, 'expected the S3 URL of the video'),
  language: z.string({ error: 'expected a language code such as en' }).trim().max(16, 'expected a language code such as en').optional(),
  transcription: z.string({ error: 'expected the S3 URL of a transcription' }).trim().min(1).optional(),
});
const transferSchema = z.object({
  file: z
    .array(transferItem, { error: 'expected a JSON array of videos' })
    .min(1, 'expected at least one video')
    .max(MAX_TRANSFER_VIDEOS, `expected at most ${MAX_TRANSFER_VIDEOS} videos`),
});

/** A listed object: in S3 (`s3://bucket/key`), or already an http(s) URL (a presigned one). */
export type ObjectLocation = { kind: 's3'; bucket: string; key: string } | { kind: 'url'; url: string };

export interface TransferVideo {
  indexId: string;
  object: ObjectLocation;
  transcription?: ObjectLocation | undefined;
  language?: string | undefined;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Where a transfer file's `object` or `transcription` is, or `parameter_invalid` naming the element. */
export function parseObjectLocation(param: string, raw: string): ObjectLocation {
  if (raw.startsWith('s3://')) {
    const rest = raw.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const key = slash < 0 ? '' : rest.slice(slash + 1);
    if (!BUCKET.test(bucket) || !key) throw errors.invalid(param, 'An S3 URL is s3://<bucket>/<key>, with a valid bucket name and a key.');
    return { kind: 's3', bucket, key };
  }
  const url = checkHttpUrl(raw);
  if (!(url instanceof URL)) throw errors.invalid(param, `It must be s3://<bucket>/<key> or an http(s) URL. ${url.message}`);
  return { kind: 'url', url: url.toString() };
}

/**
 * POST /tasks/transfers (≤ v1.2): the multipart part `file` is a JSON array, one element per video:
 * `{index_id, object, language?, transcription?}` where `object` and `transcription` are S3 URLs.
 */
export function parseTransfers(body: unknown): TransferVideo[] {
  const raw = (body as Record<string, unknown> | undefined)?.file;
  const fileText = firstValue(raw);
  if (fileText === undefined || fileText === '') throw errors.notProvided('file');
  if (typeof fileText !== 'string') throw errors.invalid('file', 'Send it as a multipart file part holding JSON.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(fileText);
  } catch (error) {
    throw errors.invalid('file', `It must be a JSON file: ${(error as Error).message}.`);
  }
  const { file } = parseInput(transferSchema, { file: parsed });
  return file.map((item, i) => ({
    indexId: item.index_id,
    object: parseObjectLocation(`file.${i}.object`, item.object),
    transcription: item.transcription === undefined ? undefined : parseObjectLocation(`file.${i}.transcription`, item.transcription),
    language: item.language,
  }));
}

/** The URL the worker fetches for a location: S3 objects path-style under the S3 endpoint. */
export function objectUrl(location: ObjectLocation, s3Url: string): string {
  if (location.kind === 'url') return location.url;
  const key = location.key.split('/').map(encodeURIComponent).join('/');
  return `${s3Url.replace(/\/+$/, '')}/${location.bucket}/${key}`;
}
