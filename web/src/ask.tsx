import { useState } from 'preact/hooks';
import type { Api, Json, Video } from './api';
import { ApiFailure, describeError } from './lib/errors';
import { formatSeconds } from './lib/format';

interface Span {
  start: number;
  end: number;
  title: string;
  text: string;
}

type Answer =
  | { kind: 'text'; title: string; text: string; streaming: boolean }
  | { kind: 'spans'; title: string; spans: Span[] }
  | { kind: 'gist'; title: string; gist: Json };

const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Text generation about the chosen video (keyed by it): summary, chapters, highlights, gist and a streamed free prompt. */
export function Ask({ api, video, onPlay }: { api: Api; video: Video; onPlay: (start: number, end: number) => void }) {
  const [answer, setAnswer] = useState<Answer | undefined>();
  const [prompt, setPrompt] = useState('');
  const [error, setError] = useState('');
  const [unavailable, setUnavailable] = useState('');
  const [busy, setBusy] = useState(false);

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (e) {
      // Not built on this server: say so once, plainly, instead of an error per click.
      if (e instanceof ApiFailure && e.code === 'not_implemented') setUnavailable(e.message);
      else setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  const summarize = (type: 'summary' | 'chapter' | 'highlight') =>
    attempt(async () => {
      const result = await api.call<Json>('POST', '/v1.3/summarize', { video_id: video.id, type });
      if (type === 'summary') setAnswer({ kind: 'text', title: 'Summary', text: str(result.summary), streaming: false });
      else if (type === 'chapter') {
        const chapters = Array.isArray(result.chapters) ? (result.chapters as Json[]) : [];
        setAnswer({
          kind: 'spans',
          title: 'Chapters',
          spans: chapters.map((c) => ({ start: num(c.start), end: num(c.end), title: str(c.chapter_title), text: str(c.chapter_summary) })),
        });
      } else {
        const highlights = Array.isArray(result.highlights) ? (result.highlights as Json[]) : [];
        setAnswer({
          kind: 'spans',
          title: 'Highlights',
          spans: highlights.map((h) => ({ start: num(h.start), end: num(h.end), title: str(h.highlight), text: str(h.highlight_summary) })),
        });
      }
    });

  const gist = () =>
    attempt(async () => {
      const result = await api.call<Json>('POST', '/v1.3/gist', { video_id: video.id, types: ['title', 'topic', 'hashtag'] });
      setAnswer({ kind: 'gist', title: 'Gist', gist: result });
    });

  const ask = () =>
    attempt(async () => {
      let text = '';
      setAnswer({ kind: 'text', title: prompt, text, streaming: true });
      await api.stream('/v1.3/analyze', { video_id: video.id, prompt, stream: true }, (event) => {
        if (event.kind === 'text') {
          text += event.text;
          setAnswer({ kind: 'text', title: prompt, text, streaming: true });
        } else if (event.kind === 'error') throw new Error(event.message);
      });
      setAnswer({ kind: 'text', title: prompt, text, streaming: false });
    });

  return (
    <section aria-labelledby="ask-title" class="ask">
      <h2 id="ask-title">Ask the video</h2>
      {unavailable ? (
        <p class="hint" role="status">
          Text generation is not available on this server: {unavailable}
        </p>
      ) : (
        <>
          <div class="row wrap">
            <button type="button" disabled={busy} onClick={() => void summarize('summary')}>
              Summary
            </button>
            <button type="button" disabled={busy} onClick={() => void summarize('chapter')}>
              Chapters
            </button>
            <button type="button" disabled={busy} onClick={() => void summarize('highlight')}>
              Highlights
            </button>
            <button type="button" disabled={busy} onClick={() => void gist()}>
              Gist
            </button>
          </div>
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              if (prompt.trim() !== '') void ask();
              else setError('Type something to ask about this video.');
            }}
          >
            <label for="prompt" class="visually-hidden">
              Prompt
            </label>
            <input
              id="prompt"
              value={prompt}
              placeholder="Ask anything about this video"
              onInput={(e) => setPrompt(e.currentTarget.value)}
            />
            <button type="submit" disabled={busy}>
              Ask
            </button>
          </form>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {answer && (
        <div class="answer" aria-live="polite" aria-busy={answer.kind === 'text' && answer.streaming}>
          <h3>{answer.title}</h3>
          {answer.kind === 'text' && (
            <p class="generated">
              {answer.text}
              {answer.streaming && (
                <span class="cursor" aria-hidden="true">
                  ▍
                </span>
              )}
            </p>
          )}
          {answer.kind === 'spans' && (
            <ol class="spans">
              {answer.spans.map((span, i) => (
                <li key={i}>
                  <button type="button" class="link" onClick={() => onPlay(span.start, span.end)}>
                    {formatSeconds(span.start)}–{formatSeconds(span.end)} {span.title}
                  </button>
                  {span.text && <p>{span.text}</p>}
                </li>
              ))}
            </ol>
          )}
          {answer.kind === 'gist' && (
            <dl>
              {typeof answer.gist.title === 'string' && (
                <>
                  <dt>Title</dt>
                  <dd>{answer.gist.title}</dd>
                </>
              )}
              {Array.isArray(answer.gist.topics) && (
                <>
                  <dt>Topics</dt>
                  <dd>{answer.gist.topics.join(', ')}</dd>
                </>
              )}
              {Array.isArray(answer.gist.hashtags) && (
                <>
                  <dt>Hashtags</dt>
                  <dd>{answer.gist.hashtags.map((tag) => `#${String(tag)}`).join(' ')}</dd>
                </>
              )}
            </dl>
          )}
        </div>
      )}
    </section>
  );
}
