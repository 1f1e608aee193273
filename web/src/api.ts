import { ApiFailure, errorFromBody } from './lib/errors';
import type { IndexedAssetRef } from './lib/library';
import { NdjsonLines, readStreamEvent, type StreamEvent } from './lib/ndjson';
import { readPieces } from './lib/pieces';
import { SseMessages, type SseMessage } from './lib/sse';

/**
 * The page's client of this server's API, same origin, with the user's key. Indexes, tasks,
 * videos and search speak v1.2 (its engines carry the four search options, its tasks report a
 * percentage, combined queries exist only there); analyze and embed-v2 exist only in v1.3.
 */
export type Json = Record<string, unknown>;

export class Api {
  constructor(private readonly key: string) {}

  async call<T = Json>(method: string, path: string, body?: FormData | Json): Promise<T> {
    const response = await this.send(method, path, body);
    const text = await response.text();
    if (!response.ok) throw new ApiFailure(errorFromBody(response.status, text));
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  /** A streamed generation (NDJSON): each event as it arrives. */
  async stream(path: string, body: Json, onEvent: (event: StreamEvent) => void): Promise<void> {
    const response = await this.posted(path, body);
    await readPieces(response.body, new NdjsonLines(), (line) => onEvent(readStreamEvent(line)));
  }

  /** A Server-Sent Events answer (POST /responses with stream: true): each event as it arrives, until `signal` aborts. */
  async events(path: string, body: Json, onMessage: (message: SseMessage) => void, signal?: AbortSignal): Promise<void> {
    const response = await this.posted(path, body, signal);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      throw new Error(`The server answered with ${response.headers.get('content-type') ?? 'no content type'}, not an event stream.`);
    }
    await readPieces(response.body, new SseMessages(), onMessage);
  }

  /** A POST's response, once it is known to be a success (its body unread); an ApiFailure otherwise. */
  private async posted(path: string, body: Json, signal?: AbortSignal): Promise<Response> {
    const response = await this.send('POST', path, body, signal);
    if (!response.ok) throw new ApiFailure(errorFromBody(response.status, await response.text()));
    return response;
  }

  private send(method: string, path: string, body?: FormData | Json, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { 'x-api-key': this.key };
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    return fetch(path, { method, headers, body: payload, signal });
  }
}

export interface Engine {
  name: string;
  options: string[];
}

export interface Index {
  id: string;
  name: string;
  engines: Engine[];
  videoCount: number;
  hasThumbnails: boolean;
}

export interface Video {
  id: string;
  filename: string;
  duration: number;
  width: number | undefined;
  height: number | undefined;
  createdAt: string | undefined;
  streamUrl: string | undefined;
  streamStatus: string | undefined;
  thumbnailUrl: string | undefined;
}

export interface Task {
  id: string;
  status: string;
  videoId: string | undefined;
  percentage: number | undefined;
  /** Why a failed task failed, in the API's words. */
  error: { code: string; message: string } | undefined;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const rec = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(rec) : []);

export function readIndex(raw: Json): Index {
  const addons = Array.isArray(raw.addons) ? raw.addons : [];
  return {
    id: str(raw._id) ?? '',
    name: str(raw.index_name) ?? '',
    engines: list(raw.engines).map((engine) => ({
      name: str(engine.engine_name) ?? '',
      options: Array.isArray(engine.engine_options) ? engine.engine_options.filter((o): o is string => typeof o === 'string') : [],
    })),
    videoCount: num(raw.video_count) ?? 0,
    hasThumbnails: addons.includes('thumbnail'),
  };
}

export function readVideo(raw: Json): Video {
  const metadata = rec(raw.metadata ?? raw.system_metadata);
  const hls = rec(raw.hls);
  const thumbnails = Array.isArray(hls.thumbnail_urls) ? hls.thumbnail_urls : [];
  return {
    id: str(raw._id) ?? '',
    filename: str(metadata.filename) ?? str(raw._id) ?? '',
    duration: num(metadata.duration) ?? 0,
    width: num(metadata.width),
    height: num(metadata.height),
    createdAt: str(raw.created_at),
    streamUrl: str(hls.video_url),
    streamStatus: str(hls.status),
    thumbnailUrl: str(thumbnails[0]),
  };
}

export function readTask(raw: Json): Task {
  return {
    id: str(raw._id) ?? '',
    status: str(raw.status) ?? 'unknown',
    videoId: str(raw.video_id),
    percentage: num(rec(raw.process).percentage),
    error:
      typeof rec(raw.error).message === 'string'
        ? { code: str(rec(raw.error).code) ?? 'failed', message: rec(raw.error).message as string }
        : undefined,
  };
}

export interface KnowledgeStore {
  id: string;
  name: string;
  itemCount: number;
}

/** An item of a knowledge store: an asset, processed until `ready` (searchable) or `failed`. */
export interface KnowledgeStoreItem {
  id: string;
  assetId: string;
  status: string;
  filename: string;
  duration: number | undefined;
}

/** An asset (v1.3 /assets): `processing` until its file is checked, then `ready` or `failed` with why. */
export interface Asset {
  id: string;
  status: string;
  error: string | undefined;
}

export function readKnowledgeStore(raw: Json): KnowledgeStore {
  return { id: str(raw._id) ?? '', name: str(raw.name) ?? str(raw._id) ?? '', itemCount: num(raw.item_count) ?? 0 };
}

export function readKnowledgeStoreItem(raw: Json): KnowledgeStoreItem {
  const metadata = rec(raw.system_metadata);
  return {
    id: str(raw._id) ?? '',
    assetId: str(raw.asset_id) ?? '',
    status: str(raw.status) ?? 'unknown',
    filename: str(metadata.filename) ?? str(raw.asset_id) ?? str(raw._id) ?? '',
    duration: num(metadata.duration),
  };
}

export function readAsset(raw: Json): Asset {
  const error = rec(raw.error);
  return {
    id: str(raw._id) ?? '',
    status: str(raw.status) ?? 'unknown',
    error: typeof error.message === 'string' ? `${error.message} (${str(error.code) ?? 'failed'})` : undefined,
  };
}

/** An indexed asset (v1.3 /indexes/{id}/indexed-assets) as far as a knowledge store needs it: its video and asset. */
export function readIndexedAssetRef(raw: Json): IndexedAssetRef {
  return { videoId: str(raw._id) ?? '', assetId: str(raw.asset_id) ?? '', status: str(raw.status) ?? 'unknown' };
}
