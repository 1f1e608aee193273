import { useState } from 'preact/hooks';
import type { Api, Index, Json, Video } from './api';
import { describeError } from './lib/errors';
import { formatSeconds } from './lib/format';
import {
  combinedQuery,
  combinedSearchBody,
  DEFAULT_SETTINGS,
  resultGroups,
  SEARCH_OPTIONS,
  searchFields,
  type Clip,
  type Combinator,
  type QueryPart,
  type ResultGroup,
  type SearchOption,
  type SearchSettings,
} from './lib/search';

type Mode = 'text' | 'image' | 'combined';

interface Page {
  groups: ResultGroup[];
  total: number | undefined;
  nextToken: string | undefined;
  /** Where the next page is fetched: combined pages have their own path. */
  pagePath: string;
}

function readPage(answer: Json, pagePath: string): Page {
  const info = (answer.page_info ?? {}) as Json;
  return {
    groups: resultGroups(answer.data),
    total: typeof info.total_results === 'number' ? info.total_results : undefined,
    nextToken: typeof info.next_page_token === 'string' && info.next_page_token !== '' ? info.next_page_token : undefined,
    pagePath,
  };
}

/** Search by text, image or a combined query; results as thumbnails that play their moment. */
export function Search({ api, index, videos, onPlay }: { api: Api; index: Index; videos: Video[]; onPlay: (clip: Clip) => void }) {
  const allowed = SEARCH_OPTIONS.filter((option) => index.engines.some((engine) => engine.options.includes(option)));
  const [mode, setMode] = useState<Mode>('text');
  const [text, setText] = useState('');
  const [image, setImage] = useState<File | undefined>();
  const [parts, setParts] = useState<QueryPart[]>([
    { text: '', option: 'visual' },
    { text: '', option: 'conversation' },
  ]);
  const [combinator, setCombinator] = useState<Combinator>('$and');
  const [proximity, setProximity] = useState('');
  const [settings, setSettings] = useState<SearchSettings>({
    ...DEFAULT_SETTINGS,
    options: DEFAULT_SETTINGS.options.filter((o) => allowed.includes(o)),
  });
  const [pages, setPages] = useState<Page[]>([]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const set = <K extends keyof SearchSettings>(key: K, value: SearchSettings[K]) => setSettings({ ...settings, [key]: value });
  const run = async (request: () => Promise<Page>, append: boolean) => {
    setBusy(true);
    setError('');
    // A new search replaces the results at once: old ones are never taken for its answer.
    if (!append) setPages([]);
    try {
      const page = await request();
      setPages(append ? [...pages, page] : [page]);
    } catch (e) {
      setError(describeError(e));
      if (!append) setPages([]);
    } finally {
      setBusy(false);
    }
  };

  const submit = () =>
    run(async () => {
      if (mode === 'combined') {
        const query = combinedQuery(parts, combinator, proximity.trim() === '' ? undefined : Number(proximity));
        return readPage(
          await api.call('POST', '/v1.2/combined-search', combinedSearchBody(index.id, settings, query)),
          '/v1.2/combined-search',
        );
      }
      if (mode === 'image' && !image) throw new Error('Choose an image to search with.');
      const form = new FormData();
      for (const [name, value] of searchFields(index.id, settings, mode === 'text' ? { text } : { image: true })) form.append(name, value);
      if (mode === 'image' && image) form.append('query_media_file', image, image.name);
      return readPage(await api.call('POST', '/v1.2/search-v2', form), '/v1.2/search');
    }, false);

  const last = pages[pages.length - 1];
  const nameOf = (videoId: string) => videos.find((video) => video.id === videoId)?.filename ?? videoId;

  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <form
        class="search"
        onSubmit={(e) => {
          e.preventDefault();
          // Said here, in the page's words: the API would answer about its own parameter names.
          if (mode === 'text' && text.trim() === '') return setError('Type something to search for.');
          if (mode === 'combined' && parts.some((part) => part.text.trim() === ''))
            return setError('Type something in every part of the query.');
          void submit();
        }}
      >
        <div role="radiogroup" aria-label="Query kind" class="row">
          {(['text', 'image', 'combined'] as const).map((kind) => (
            <label key={kind} class="check">
              <input type="radio" name="mode" checked={mode === kind} onChange={() => setMode(kind)} />
              {kind}
            </label>
          ))}
        </div>
        {mode === 'text' && (
          <>
            <label for="query-text" class="visually-hidden">
              Query
            </label>
            <input
              id="query-text"
              type="search"
              placeholder="What happens in the video?"
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </>
        )}
        {mode === 'image' && (
          <>
            <label for="query-image">Image (JPEG or PNG)</label>
            <input id="query-image" type="file" accept="image/jpeg,image/png" onChange={(e) => setImage(e.currentTarget.files?.[0])} />
          </>
        )}
        {mode === 'combined' && (
          <fieldset>
            <legend>Combined query</legend>
            {parts.map((part, i) => (
              <div class="row" key={i}>
                <label class="visually-hidden" for={`part-${i}`}>
                  Part {i + 1}
                </label>
                <input
                  id={`part-${i}`}
                  value={part.text}
                  placeholder={`Part ${i + 1}`}
                  onInput={(e) => setParts(parts.map((p, j) => (j === i ? { ...p, text: e.currentTarget.value } : p)))}
                />
                <select
                  aria-label={`Part ${i + 1} option`}
                  value={part.option}
                  onChange={(e) => setParts(parts.map((p, j) => (j === i ? { ...p, option: e.currentTarget.value as SearchOption } : p)))}
                >
                  {allowed.map((option) => (
                    <option key={option}>{option}</option>
                  ))}
                </select>
                {parts.length > 1 && (
                  <button type="button" aria-label={`Remove part ${i + 1}`} onClick={() => setParts(parts.filter((_, j) => j !== i))}>
                    ×
                  </button>
                )}
              </div>
            ))}
            <div class="row">
              <button type="button" onClick={() => setParts([...parts, { text: '', option: allowed[0] ?? 'visual' }])}>
                Add part
              </button>
              <label>
                joined by{' '}
                <select value={combinator} onChange={(e) => setCombinator(e.currentTarget.value as Combinator)}>
                  <option value="$and">and (at the same time)</option>
                  <option value="$or">or</option>
                  <option value="$then">then (in this order)</option>
                </select>
              </label>
              <label>
                within{' '}
                <input
                  class="short"
                  type="number"
                  min="0"
                  step="1"
                  value={proximity}
                  placeholder="–"
                  onInput={(e) => setProximity(e.currentTarget.value)}
                />{' '}
                s
              </label>
            </div>
          </fieldset>
        )}
        <details>
          <summary>Options</summary>
          <fieldset>
            <legend>Search in</legend>
            {allowed.map((option) => (
              <label key={option} class="check">
                <input
                  type="checkbox"
                  checked={settings.options.includes(option)}
                  onChange={(e) =>
                    set('options', e.currentTarget.checked ? [...settings.options, option] : settings.options.filter((o) => o !== option))
                  }
                />
                {option}
              </label>
            ))}
          </fieldset>
          <div class="row wrap">
            <label>
              Match{' '}
              <select value={settings.operator} onChange={(e) => set('operator', e.currentTarget.value as SearchSettings['operator'])}>
                <option value="or">any option</option>
                <option value="and">every option</option>
              </select>
            </label>
            <label>
              Conversation{' '}
              <select
                value={settings.conversationOption}
                onChange={(e) => set('conversationOption', e.currentTarget.value as SearchSettings['conversationOption'])}
              >
                <option value="semantic">semantic</option>
                <option value="exact_match">exact match</option>
              </select>
            </label>
            <label>
              Threshold{' '}
              <select value={settings.threshold} onChange={(e) => set('threshold', e.currentTarget.value as SearchSettings['threshold'])}>
                {(['high', 'medium', 'low', 'none'] as const).map((level) => (
                  <option key={level}>{level}</option>
                ))}
              </select>
            </label>
            <label>
              Group by{' '}
              <select value={settings.groupBy} onChange={(e) => set('groupBy', e.currentTarget.value as SearchSettings['groupBy'])}>
                <option value="clip">clip</option>
                <option value="video">video</option>
              </select>
            </label>
            <label>
              Per page{' '}
              <input
                class="short"
                type="number"
                min="1"
                max="50"
                value={settings.pageLimit}
                onInput={(e) => set('pageLimit', Number(e.currentTarget.value) || 10)}
              />
            </label>
          </div>
        </details>
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {last && (
        <p class="hint" aria-live="polite">
          {last.total !== undefined ? `${last.total} result${last.total === 1 ? '' : 's'}` : ''}
        </p>
      )}
      {pages
        .flatMap((page) => page.groups)
        .map((group, g) => (
          <div key={g} class="group">
            {group.videoId && <h3>{nameOf(group.videoId)}</h3>}
            <ul class="results">
              {group.clips.map((clip, i) => (
                <li key={`${g}-${i}`}>
                  <button
                    type="button"
                    class="result"
                    data-start={clip.start}
                    data-end={clip.end}
                    onClick={() => onPlay(clip)}
                    aria-label={`Play ${nameOf(clip.videoId)} from ${formatSeconds(clip.start)}`}
                  >
                    {clip.thumbnailUrl ? (
                      <img src={clip.thumbnailUrl} alt="" loading="lazy" />
                    ) : (
                      <span class="thumb-placeholder" aria-hidden="true" />
                    )}
                    <span class="meta">
                      {formatSeconds(clip.start)}–{formatSeconds(clip.end)}
                      {clip.confidence && <span class={`confidence ${clip.confidence}`}>{clip.confidence}</span>}
                      {clip.score !== undefined && <span>{clip.score.toFixed(1)}</span>}
                    </span>
                    {!group.videoId && <span class="name">{nameOf(clip.videoId)}</span>}
                    {clip.kinds.length > 0 && <span class="kinds">{clip.kinds.join(', ')}</span>}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ))}
      {last?.nextToken && (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(
              async () => readPage(await api.call('GET', `${last.pagePath}/${encodeURIComponent(last.nextToken!)}`), last.pagePath),
              true,
            )
          }
        >
          Next page
        </button>
      )}
    </section>
  );
}
