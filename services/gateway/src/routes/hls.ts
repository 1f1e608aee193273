import { ApiError } from '@vus/core';
import type { FileChunk } from '@vus/grpc/types/index/v1/FileChunk';
import type { Endpoint } from '../endpoints/endpoint';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { locals } from '../http/context';
import { HLS_PATH } from '../http/signed-urls';
import type { RouteDeps } from './deps';

const notFound = () => new ApiError('resource_not_exist', 'This video stream has no such file.');

/**
 * How long one stream file may take to reach the player: longer than an API call, since a segment
 * on a slow connection takes a while; a player that goes away cancels the read sooner.
 */
const STREAM_FILE_MS = 10 * 60_000;

/** The bytes of a streamed file: the messages after its header. */
async function* bytesOf(chunks: AsyncIterator<FileChunk>): AsyncIterable<Buffer> {
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value.data;
}

/**
 * Serves the stream URLs that tasks and videos show. No API key: the token in the path is the
 * permission (a signed blob folder and an expiry), and the relative URIs of the playlist keep it.
 * The gateway checks the token and that the file is one plain name; index-service, which owns
 * the streams, checks the rest (the folder is a video's stream, the file a known type) and sends
 * the bytes, which are piped through as they come.
 */
export function hlsFileEndpoints({ clients: { index }, thumbnails }: Pick<RouteDeps, 'clients' | 'thumbnails'>): Endpoint[] {
  const { clock } = thumbnails;
  const signer = thumbnails.signer.hls;

  return [
    {
      method: 'get',
      path: `${HLS_PATH}/:token/:file`,
      handle: async (req, res) => {
        const verified = signer.verify(String(req.params.token), clock.now());
        if (!verified.ok) {
          throw new ApiError(
            'api_not_allowed',
            verified.reason === 'expired'
              ? 'This video stream URL has expired. Retrieve the video again for a new one.'
              : 'This video stream URL is not valid.',
          );
        }
        const file = String(req.params.file);
        if (!signer.keyOf(verified.folder, file)) throw notFound();
        // The player went away: the read stops (index-service stops reading the blob).
        const gone = new AbortController();
        res.on('close', () => gone.abort());
        const read = index.readVideoStreamFile(
          { requestId: locals(res).requestId, deadline: new Date(Date.now() + STREAM_FILE_MS) },
          { folder: verified.folder, file },
          gone.signal,
        );
        const chunks = read[Symbol.asyncIterator]();
        const header = await chunks.next();
        if (header.done) {
          if (gone.signal.aborted) return;
          throw notFound();
        }
        const maxAge = Math.max(0, Math.floor((verified.expiresAt.getTime() - clock.now().getTime()) / 1000));
        res.set({
          'content-type': header.value.content_type,
          'content-length': String(header.value.size),
          'cache-control': `private, max-age=${maxAge}`,
          // Web players (hls.js) fetch the segments from their page's origin; the URL is the permission.
          'access-control-allow-origin': '*',
        });
        try {
          await pipeline(Readable.from(bytesOf(chunks)), res);
        } catch (error) {
          // The player went away mid-file: nothing to answer.
          if (!res.headersSent) throw error;
          res.destroy();
        }
      },
    },
  ];
}
