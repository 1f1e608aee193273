import { useState } from 'preact/hooks';
import type { Api, Json } from './api';
import { ApiFailure, describeError } from './lib/errors';
import { formatSeconds } from './lib/format';
import { nearestSegments, type Segment } from './lib/nearest';

const MODEL = 'marengo3.0';
const POLL_MS = 1000;

const segmentsOf = (data: unknown): Segment[] =>
  (Array.isArray(data) ? (data as Json[]) : [])
    // Clips only: an asset-scope vector spans the whole video and is no moment.
    .filter((item) => Array.isArray(item.embedding) && typeof item.start_sec === 'number' && item.embedding_scope !== 'asset')
    .map((item) => ({
      start: item.start_sec as number,
      end: typeof item.end_sec === 'number' ? item.end_sec : (item.start_sec as number),
      embedding: item.embedding as number[],
    }));

/**
 * Embeddings (v1.3 POST /embed-v2): a text's vector, and the moments of a video nearest to it.
 * The video's segments come from an embed-v2 task over the video's URL (the one it was indexed
 * from in this browser, or one typed in). Keyed by the video: a new video starts afresh.
 */
export function Embeddings({
  api,
  sourceUrl,
  onPlay,
}: {
  api: Api;
  sourceUrl: string | undefined;
  onPlay: (start: number, end: number) => void;
}) {
  const [text, setText] = useState('');
  const [url, setUrl] = useState(sourceUrl ?? '');
  const [segments, setSegments] = useState<Segment[] | undefined>();
  const [nearest, setNearest] = useState<{ start: number; end: number; similarity: number }[]>([]);
  const [dimensions, setDimensions] = useState<number | undefined>();
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [unavailable, setUnavailable] = useState('');

  const videoSegments = async (): Promise<Segment[]> => {
    if (segments) return segments;
    setStatus('Embedding the video…');
    const task = await api.call<Json>('POST', '/v1.3/embed-v2/tasks', {
      input_type: 'video',
      model_name: MODEL,
      video: { media_source: { url } },
    });
    for (;;) {
      const current = await api.call<Json>('GET', `/v1.3/embed-v2/tasks/${encodeURIComponent(String(task._id))}`);
      if (current.status === 'ready') {
        const found = segmentsOf(current.data);
        setSegments(found);
        return found;
      }
      if (current.status === 'failed') throw new Error('The video embedding task failed.');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };

  const run = async () => {
    setError('');
    try {
      const answer = await api.call<Json>('POST', '/v1.3/embed-v2', { input_type: 'text', model_name: MODEL, text: { input_text: text } });
      const vector =
        segmentsOf(answer.data)[0]?.embedding ?? ((answer.data as Json[] | undefined)?.[0]?.embedding as number[] | undefined) ?? [];
      setDimensions(vector.length);
      if (url.trim() !== '') setNearest(nearestSegments(vector, await videoSegments(), 5));
      setStatus('');
    } catch (e) {
      setStatus('');
      if (e instanceof ApiFailure && e.code === 'not_implemented') setUnavailable(e.message);
      else setError(describeError(e));
    }
  };

  return (
    <section aria-labelledby="embed-title">
      <h2 id="embed-title">Embeddings</h2>
      {unavailable ? (
        <p class="hint" role="status">
          Embeddings are not available on this server: {unavailable}
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (text.trim() !== '') void run();
            else setError('Type something to embed.');
          }}
        >
          <div class="row">
            <label for="embed-text" class="visually-hidden">
              Text to embed
            </label>
            <input id="embed-text" value={text} placeholder="A text to embed" onInput={(e) => setText(e.currentTarget.value)} />
            <button type="submit">Embed</button>
          </div>
          <label for="embed-url">Video URL for nearest moments (optional)</label>
          <input
            id="embed-url"
            class="full"
            type="url"
            value={url}
            placeholder="https://…/video.mp4"
            onInput={(e) => {
              setUrl(e.currentTarget.value);
              setSegments(undefined);
            }}
          />
        </form>
      )}
      {status && (
        <p class="hint" role="status">
          {status}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {dimensions !== undefined && <p class="hint">A vector of {dimensions} dimensions.</p>}
      {nearest.length > 0 && (
        <ol class="spans">
          {nearest.map((moment, i) => (
            <li key={i}>
              <button type="button" class="link" onClick={() => onPlay(moment.start, moment.end)}>
                {formatSeconds(moment.start)}–{formatSeconds(moment.end)} · similarity {moment.similarity.toFixed(3)}
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
