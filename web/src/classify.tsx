import { useState } from 'preact/hooks';
import type { Api, Index, Json, Video } from './api';
import { parseClasses } from './lib/classes';
import { ApiFailure, describeError } from './lib/errors';
import { formatSeconds } from './lib/format';

interface ClassScore {
  name: string;
  score: number;
  clips: { start: number; end: number; score: number; prompt: string }[];
}
interface Classified {
  videoId: string;
  classes: ClassScore[];
}

const num = (value: unknown) => (typeof value === 'number' ? value : 0);
const str = (value: unknown) => (typeof value === 'string' ? value : '');
const list = (value: unknown) => (Array.isArray(value) ? (value as Json[]) : []);

/** v1.2 POST /classify/bulk's answer: per video, its classes (best first) with their moments. */
export function readClassified(answer: Json): Classified[] {
  return list(answer.data).map((video) => ({
    videoId: str(video.video_id),
    classes: list(video.classes)
      .map((cls) => ({
        name: str(cls.name),
        score: num(cls.score),
        clips: list(cls.clips).map((clip) => ({
          start: num(clip.start),
          end: num(clip.end),
          score: num(clip.score),
          prompt: str(clip.prompt),
        })),
      }))
      .sort((a, b) => b.score - a.score),
  }));
}

/** The search options the index's Marengo engine was made with (classify searches with them). */
const optionsOf = (index: Index): string[] => index.engines.find((engine) => engine.name.startsWith('marengo'))?.options ?? ['visual'];

/**
 * Classify (v1.2 POST /classify/bulk): classes of prompts in, each video of the index out with a
 * score per class and the moments that made it, each playable.
 */
export function Classify({
  api,
  index,
  videos,
  onPlay,
}: {
  api: Api;
  index: Index;
  videos: Video[];
  onPlay: (videoId: string, start: number, end: number) => void;
}) {
  const [text, setText] = useState('');
  const [results, setResults] = useState<Classified[] | undefined>();
  const [error, setError] = useState('');
  const [unavailable, setUnavailable] = useState('');
  const [busy, setBusy] = useState(false);
  const nameOf = (videoId: string) => videos.find((video) => video.id === videoId)?.filename ?? videoId;

  const submit = async () => {
    const parsed = parseClasses(text);
    if ('problem' in parsed) {
      setError(parsed.problem);
      return;
    }
    setBusy(true);
    setError('');
    setResults(undefined);
    try {
      const answer = await api.call<Json>('POST', '/v1.2/classify/bulk', {
        index_id: index.id,
        options: optionsOf(index),
        classes: parsed.classes,
        include_clips: true,
        page_limit: 50,
      });
      setResults(readClassified(answer));
    } catch (e) {
      if (e instanceof ApiFailure && e.code === 'not_implemented') setUnavailable(e.message);
      else setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="classify-title">
      <h2 id="classify-title">Classify</h2>
      {unavailable ? (
        <p class="hint">Classification is not available on this server: {unavailable}</p>
      ) : (
        <form
          class="search"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <label for="classes">Classes</label>
          <p class="hint" id="classes-hint">
            One a line: its name, a colon, and what to look for, comma-separated (outdoors: a garden, a park).
          </p>
          <textarea
            id="classes"
            rows={3}
            aria-describedby="classes-hint"
            value={text}
            placeholder={'outdoors: a garden, a park\nfruit: an orange'}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Classifying…' : 'Classify'}
          </button>
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {results && (
        <div aria-live="polite" class="classified">
          {results.length === 0 && <p class="hint">No video of this index matches any of these classes.</p>}
          {results.map((video) => (
            <div key={video.videoId} class="group">
              <h3>{nameOf(video.videoId)}</h3>
              <ul class="classes">
                {video.classes.map((cls) => (
                  <li key={cls.name}>
                    <span class="class-name">{cls.name}</span> <span class="score">{cls.score.toFixed(1)}</span>
                    <ol class="spans">
                      {cls.clips.map((clip, i) => (
                        <li key={i}>
                          <button
                            type="button"
                            data-start={clip.start}
                            data-end={clip.end}
                            onClick={() => onPlay(video.videoId, clip.start, clip.end)}
                            aria-label={`Play ${cls.name} in ${nameOf(video.videoId)} from ${formatSeconds(clip.start)}`}
                          >
                            {formatSeconds(clip.start)}–{formatSeconds(clip.end)} · {clip.prompt} · {clip.score.toFixed(1)}
                          </button>
                        </li>
                      ))}
                    </ol>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
