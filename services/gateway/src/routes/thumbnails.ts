import { ApiError, isId } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { locals } from '../http/context';
import { readQuery, scalar } from '../http/query';
import { THUMBNAIL_PATH } from '../http/signed-urls';
import type { RouteDeps } from './deps';

/**
 * Serves the URLs that GET …/thumbnail hands out. No API key: the signature is the permission,
 * and it names the organization, index, video and thumbnail time it grants until it expires.
 * The bytes come from index-service, which alone knows where thumbnails are stored.
 */
export function thumbnailFileEndpoints({
  clients: { index },
  timeoutMs,
  thumbnails: { signer, clock },
}: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'thumbnails'>): Endpoint[] {
  return [
    {
      method: 'get',
      path: `${THUMBNAIL_PATH}/:indexId/:videoId`,
      handle: async (req, res) => {
        const query = readQuery(req.originalUrl);
        const indexId = String(req.params.indexId);
        const videoId = String(req.params.videoId);
        const verified = signer.verify(
          {
            indexId,
            videoId,
            org: scalar(query, 'org'),
            t: scalar(query, 't'),
            expires: scalar(query, 'expires'),
            signature: scalar(query, 'signature'),
          },
          clock.now(),
        );
        if (!verified.ok) {
          throw new ApiError(
            'api_not_allowed',
            verified.reason === 'expired' ? 'This thumbnail URL has expired. Ask for a new one.' : 'This thumbnail URL is not valid.',
          );
        }
        const { grant } = verified;
        if (!isId(grant.orgId) || !isId(indexId) || !isId(videoId))
          throw new ApiError('api_not_allowed', 'This thumbnail URL is not valid.');
        const thumbnail = await index.getVideoThumbnail(
          { requestId: locals(res).requestId, orgId: grant.orgId, deadline: new Date(Date.now() + timeoutMs) },
          { index_id: indexId, video_id: videoId, time: grant.time, include_data: true },
        );
        const maxAge = Math.max(0, Math.floor((verified.expiresAt.getTime() - clock.now().getTime()) / 1000));
        res.set({
          'content-type': thumbnail.content_type || 'image/jpeg',
          'content-length': String(thumbnail.data.length),
          'cache-control': `private, max-age=${maxAge}`,
        });
        res.end(thumbnail.data);
      },
    },
  ];
}
