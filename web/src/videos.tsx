import { useEffect, useState } from 'preact/hooks';
import { readVideo, type Api, type Index, type Json, type Video } from './api';
import { describeError } from './lib/errors';
import { formatSeconds } from './lib/format';

/** The index's videos with thumbnail, duration and stream status; choosing one opens it in the player. */
export function Videos({
  api,
  index,
  refreshKey,
  selectedId,
  onSelect,
  onLoaded,
}: {
  api: Api;
  index: Index;
  refreshKey: number;
  selectedId: string | undefined;
  onSelect: (video: Video) => void;
  onLoaded: (videos: Video[]) => void;
}) {
  const [videos, setVideos] = useState<Video[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    api
      .call<{ data: Json[] }>(
        'GET',
        `/v1.2/indexes/${encodeURIComponent(index.id)}/videos?page_limit=50&sort_by=created_at&sort_option=desc`,
      )
      .then(
        (page) => {
          const found = page.data.map(readVideo);
          setVideos(found);
          onLoaded(found);
          setError('');
        },
        (e) => setError(describeError(e)),
      );
  }, [api, index.id, refreshKey]);

  return (
    <section aria-labelledby="videos-title">
      <h2 id="videos-title">Videos</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {videos.length === 0 && !error && <p class="hint">No video in this index yet.</p>}
      <ul class="videos">
        {videos.map((video) => (
          <li key={video.id}>
            <button
              type="button"
              class={`video${video.id === selectedId ? ' selected' : ''}`}
              aria-pressed={video.id === selectedId}
              onClick={() => onSelect(video)}
            >
              <Thumbnail api={api} index={index} video={video} />
              <span class="name">{video.filename}</span>
              <span class="meta">
                {formatSeconds(video.duration)}
                {video.width && video.height ? ` · ${video.width}×${video.height}` : ''} · {streamLabel(video)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

const streamLabel = (video: Video): string =>
  video.streamUrl
    ? `stream ${video.streamStatus?.toLowerCase() ?? 'ready'}`
    : video.streamStatus
      ? `stream ${video.streamStatus.toLowerCase()}`
      : 'indexed, no stream';

function Thumbnail({ api, index, video }: { api: Api; index: Index; video: Video }) {
  const [url, setUrl] = useState(video.thumbnailUrl);
  useEffect(() => {
    if (video.thumbnailUrl || !index.hasThumbnails) return;
    api
      .call<{ thumbnail?: string }>('GET', `/v1.2/indexes/${encodeURIComponent(index.id)}/videos/${encodeURIComponent(video.id)}/thumbnail`)
      .then(
        (answer) => setUrl(answer.thumbnail),
        () => setUrl(undefined),
      );
  }, [video.id]);
  return url ? <img src={url} alt="" loading="lazy" /> : <span class="thumb-placeholder" aria-hidden="true" />;
}
