import { useEffect, useRef, useState } from 'preact/hooks';
import {
  readAsset,
  readIndexedAssetRef,
  readKnowledgeStore,
  readKnowledgeStoreItem,
  type Api,
  type Index,
  type Json,
  type KnowledgeStore,
  type KnowledgeStoreItem,
  type Video,
} from './api';
import { ApiFailure, describeError } from './lib/errors';
import { formatSeconds } from './lib/format';
import { describePlan, planIndexVideos } from './lib/library';
import { answerSegments, citedMoments, readResponseEvent, responseRequest, type AnswerPart, type Citation } from './lib/responses';

const DONE = new Set(['ready', 'failed']);
const POLL_MS = 2000;
const v13 = (path: string) => `/v1.3${path}`;
const storePath = (storeId: string) => v13(`/knowledge-stores/${encodeURIComponent(storeId)}`);

/** A file on its way to the store: uploaded as an asset, checked by the server, then added as an item. */
interface Upload {
  key: number;
  label: string;
  state: 'uploading' | 'processing';
  error?: string;
}

interface Answer {
  question: string;
  /** The streamed text until the response completes. */
  text: string;
  /** The completed answer with its citations. */
  parts: AnswerPart[] | undefined;
  streaming: boolean;
  incomplete: string | undefined;
}

/** The player's view of a cited moment's video: the item's stream, named by its title. */
function citedVideo(citation: Citation, item: KnowledgeStoreItem | undefined): Video {
  return {
    id: citation.itemId,
    filename: citation.title || item?.filename || citation.itemId,
    duration: item?.duration ?? citation.endSec,
    width: undefined,
    height: undefined,
    createdAt: undefined,
    streamUrl: citation.hlsUrl,
    streamStatus: citation.hlsUrl ? 'COMPLETE' : undefined,
    thumbnailUrl: citation.thumbnailUrl,
  };
}

/**
 * "Ask your library": a knowledge store (v1.3 /knowledge-stores) chosen or created here, filled
 * with this index's videos that have an asset or with files uploaded as assets, each item's status
 * shown until ready; a question answered by POST /responses as a stream, each citation a marker that
 * plays its moment. Follow-up questions continue the conversation (its session).
 */
export function Library({
  api,
  index,
  videos,
  onPlay,
}: {
  api: Api;
  index: Index | undefined;
  videos: Video[];
  onPlay: (video: Video, start: number, end: number) => void;
}) {
  const [stores, setStores] = useState<KnowledgeStore[]>([]);
  const [storeId, setStoreId] = useState('');
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [items, setItems] = useState<KnowledgeStoreItem[]>([]);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [notice, setNotice] = useState('');
  const [storeError, setStoreError] = useState('');
  const [adding, setAdding] = useState(false);
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState<Answer | undefined>();
  const [sessionId, setSessionId] = useState<string | undefined>();
  const [askError, setAskError] = useState('');
  const [asking, setAsking] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const counter = useRef(0);
  const inFlight = useRef<AbortController | undefined>(undefined);
  /** The store shown now: an upload that finishes after the user chose another adds to its own store, not to this list. */
  const shownStore = useRef(storeId);
  shownStore.current = storeId;

  const loadStores = async (select?: string) => {
    try {
      const page = await api.call<{ data: Json[] }>('GET', v13('/knowledge-stores?page_limit=50&sort_by=created_at&sort_option=desc'));
      const found = page.data.map(readKnowledgeStore);
      setStores(found);
      if (select !== undefined) setStoreId(select);
      else if (!found.some((store) => store.id === storeId)) setStoreId(found[0]?.id ?? '');
    } catch (e) {
      setStoreError(describeError(e));
    }
  };
  useEffect(() => {
    void loadStores();
  }, [api]);

  const loadItems = async (id: string) => {
    const page = await api.call<{ data: Json[] }>('GET', `${storePath(id)}/items?page_limit=50&sort_by=created_at&sort_option=asc`);
    return page.data.map(readKnowledgeStoreItem);
  };

  // A new store: its items, a new conversation, and the previous store's answer gone.
  useEffect(() => {
    inFlight.current?.abort();
    setItems([]);
    setUploads([]);
    setNotice('');
    setAnswer(undefined);
    setSessionId(undefined);
    setAskError('');
    setStoreError('');
    if (!storeId) return;
    let live = true;
    loadItems(storeId).then(
      (found) => live && setItems(found),
      (e) => live && setStoreError(describeError(e)),
    );
    return () => {
      live = false;
    };
  }, [api, storeId]);

  // Items still processing are read again until each is ready or failed.
  const waiting = items.some((item) => !DONE.has(item.status));
  useEffect(() => {
    if (!storeId || !waiting) return;
    const timer = setTimeout(() => {
      loadItems(storeId).then(setItems, (e) => setStoreError(describeError(e)));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [storeId, items]);

  useEffect(() => () => inFlight.current?.abort(), []);

  const addIndexVideos = async () => {
    if (!index) return;
    setAdding(true);
    setStoreError('');
    setNotice('');
    try {
      const page = await api.call<{ data: Json[] }>('GET', v13(`/indexes/${encodeURIComponent(index.id)}/indexed-assets?page_limit=50`));
      const indexed = page.data.map(readIndexedAssetRef);
      const plan = planIndexVideos(
        videos.map((video) => video.id),
        indexed,
        items.map((item) => item.assetId),
      );
      let added = 0;
      for (const assetId of plan.add) {
        await api.call<Json>('POST', `${storePath(storeId)}/items`, { asset_id: assetId });
        added++;
      }
      setNotice(describePlan(plan, added));
      if (shownStore.current === storeId) setItems(await loadItems(storeId));
    } catch (e) {
      setStoreError(describeError(e));
    } finally {
      setAdding(false);
    }
  };

  const updateUpload = (key: number, change: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));

  /** A file becomes an asset (checked by the server before it is ready), then an item of the store. */
  const uploadFile = async (file: File, targetStore: string) => {
    const key = ++counter.current;
    setUploads((all) => [...all, { key, label: file.name, state: 'uploading' }]);
    try {
      const form = new FormData();
      form.append('method', 'direct');
      form.append('file', file, file.name);
      let asset = readAsset(await api.call<Json>('POST', v13('/assets'), form));
      updateUpload(key, { state: 'processing' });
      while (!DONE.has(asset.status)) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS / 2));
        asset = readAsset(await api.call<Json>('GET', v13(`/assets/${encodeURIComponent(asset.id)}`)));
      }
      if (asset.status === 'failed') throw new Error(asset.error ?? 'The server could not read this file.');
      await api.call<Json>('POST', `${storePath(targetStore)}/items`, { asset_id: asset.id });
      setUploads((all) => all.filter((u) => u.key !== key));
      if (targetStore === shownStore.current) setItems(await loadItems(targetStore));
    } catch (e) {
      updateUpload(key, { error: describeError(e) });
    }
  };

  const createStore = async () => {
    if (name.trim() === '') {
      setStoreError('Type a name for the knowledge store.');
      return;
    }
    try {
      const created = readKnowledgeStore(await api.call<Json>('POST', v13('/knowledge-stores'), { name: name.trim() }));
      setCreating(false);
      setName('');
      await loadStores(created.id);
    } catch (e) {
      setStoreError(describeError(e));
    }
  };

  const ask = async () => {
    const asked = question.trim();
    if (asked === '') {
      setAskError('Type something to ask your library.');
      return;
    }
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setAsking(true);
    setAskError('');
    let text = '';
    const shown: Answer = { question: asked, text, parts: undefined, streaming: true, incomplete: undefined };
    setAnswer(shown);
    try {
      await api.events(
        '/v1.3/responses',
        responseRequest(storeId, asked, sessionId),
        (message) => {
          const event = readResponseEvent(message);
          if (event.kind === 'started' && event.sessionId) setSessionId(event.sessionId);
          else if (event.kind === 'delta') {
            text += event.text;
            setAnswer({ ...shown, text });
          } else if (event.kind === 'completed') {
            if (event.sessionId) setSessionId(event.sessionId);
            setAnswer({ ...shown, text, parts: event.parts, streaming: false, incomplete: event.incomplete });
          } else if (event.kind === 'failed') throw new Error(event.message);
        },
        controller.signal,
      );
      setAnswer((current) => current && { ...current, streaming: false });
      setQuestion('');
    } catch (e) {
      if (controller.signal.aborted) return;
      controller.abort();
      setAnswer(undefined);
      setAskError(
        e instanceof ApiFailure && e.code === 'not_implemented'
          ? `This server cannot answer questions over a knowledge store yet. It said: ${e.message}`
          : `The question could not be answered: ${describeError(e)}`,
      );
    } finally {
      if (inFlight.current === controller) setAsking(false);
    }
  };

  const itemOf = (itemId: string) => items.find((item) => item.id === itemId);
  const play = (citation: Citation) => onPlay(citedVideo(citation, itemOf(citation.itemId)), citation.startSec, citation.endSec);
  const readyCount = items.filter((item) => item.status === 'ready').length;

  return (
    <section aria-labelledby="library-title" class="library">
      <h2 id="library-title">Ask your library</h2>
      <label for="store-select">Knowledge store</label>
      <div class="row">
        <select id="store-select" value={storeId} onChange={(e) => setStoreId(e.currentTarget.value)}>
          {stores.length === 0 && <option value="">No knowledge store yet</option>}
          {stores.map((store) => (
            <option key={store.id} value={store.id}>
              {store.name}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New store
        </button>
      </div>
      {creating && (
        <form
          class="row"
          aria-label="New knowledge store"
          onSubmit={(e) => {
            e.preventDefault();
            void createStore();
          }}
        >
          <label for="store-name" class="visually-hidden">
            Store name
          </label>
          <input id="store-name" value={name} placeholder="Name of the store" onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit">Create store</button>
        </form>
      )}
      {storeError && (
        <p class="error" role="alert">
          {storeError}
        </p>
      )}
      {storeId && (
        <>
          <div class="row wrap">
            <button type="button" disabled={!index || adding} onClick={() => void addIndexVideos()}>
              Add this index's videos
            </button>
            <input
              ref={fileInput}
              id="store-files"
              type="file"
              accept="video/*,image/jpeg,image/png"
              multiple
              class="visually-hidden"
              // The button opens it: the input itself is no Tab stop.
              tabIndex={-1}
              aria-hidden="true"
              onChange={(e) => {
                for (const file of Array.from(e.currentTarget.files ?? [])) void uploadFile(file, storeId);
                e.currentTarget.value = '';
              }}
            />
            <button type="button" onClick={() => fileInput.current?.click()}>
              Upload files to the store…
            </button>
          </div>
          {notice && (
            <p class="hint" role="status">
              {notice}
            </p>
          )}
          <ul class="items" aria-live="polite" aria-label="Items of the store">
            {items.map((item) => (
              <li key={item.id} class={`item ${item.status}`}>
                <span class="name">{item.filename}</span>
                <span class="status">{item.status}</span>
              </li>
            ))}
            {uploads.map((upload) => (
              <li key={`upload-${upload.key}`} class={`item ${upload.error ? 'failed' : upload.state}`}>
                <span class="name">{upload.label}</span>
                {upload.error ? (
                  <span class="error">{upload.error}</span>
                ) : (
                  <span class="status">{upload.state === 'uploading' ? 'uploading' : 'checking the file'}</span>
                )}
              </li>
            ))}
          </ul>
          {items.length === 0 && uploads.length === 0 && <p class="hint">This store holds nothing yet: add videos to ask about them.</p>}
          {items.length > 0 && readyCount < items.length && (
            <p class="hint">
              {readyCount} of {items.length} ready: questions are answered from the ready ones.
            </p>
          )}
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void ask();
            }}
          >
            <label for="library-question" class="visually-hidden">
              Question
            </label>
            <input
              id="library-question"
              value={question}
              placeholder={sessionId ? 'Ask a follow-up question' : 'Ask a question about the videos in this store'}
              onInput={(e) => setQuestion(e.currentTarget.value)}
            />
            <button type="submit" disabled={asking}>
              Ask the library
            </button>
          </form>
          {sessionId && (
            <p class="hint">
              Follow-up questions continue this conversation.{' '}
              <button
                type="button"
                class="link"
                onClick={() => {
                  inFlight.current?.abort();
                  setSessionId(undefined);
                  setAnswer(undefined);
                }}
              >
                New conversation
              </button>
            </p>
          )}
        </>
      )}
      {askError && (
        <p class="error" role="alert">
          {askError}
        </p>
      )}
      {answer && <AnswerView answer={answer} onPlay={play} />}
    </section>
  );
}

/** A citation's marker: a video's plays its moment; an image, cited whole, has nothing to play and is named only. */
function Marker({ n, citation, onPlay }: { n: number; citation: Citation; onPlay: (citation: Citation) => void }) {
  if (citation.kind === 'image') {
    return (
      <span class="cite" title={citation.title}>
        [{n}]
      </span>
    );
  }
  return (
    <button
      type="button"
      class="cite"
      data-start={citation.startSec}
      data-end={citation.endSec}
      aria-label={`Play source ${n}: ${citation.title}, ${formatSeconds(citation.startSec)}–${formatSeconds(citation.endSec)}`}
      onClick={() => onPlay(citation)}
    >
      [{n}]
    </button>
  );
}

/** A cited moment below the answer, with its thumbnail: a video's plays it, an image is shown. */
function Source({ n, citation, onPlay }: { n: number; citation: Citation; onPlay: (citation: Citation) => void }) {
  const content = (
    <>
      {citation.thumbnailUrl ? (
        <img src={citation.thumbnailUrl} alt="" loading="lazy" />
      ) : (
        <span class="thumb-placeholder" aria-hidden="true" />
      )}
      <span class="meta">
        [{n}] {citation.kind === 'video' ? `${formatSeconds(citation.startSec)}–${formatSeconds(citation.endSec)}` : 'image'}
      </span>
      <span class="name">{citation.title}</span>
    </>
  );
  return citation.kind === 'video' ? (
    <button type="button" class="source" data-start={citation.startSec} data-end={citation.endSec} onClick={() => onPlay(citation)}>
      {content}
    </button>
  ) : (
    <div class="source">{content}</div>
  );
}

/** The answer: streamed text, then the completed text with a marker per citation and the cited moments below. */
function AnswerView({ answer, onPlay }: { answer: Answer; onPlay: (citation: Citation) => void }) {
  const parts = answer.parts && answer.parts.length > 0 ? answer.parts : undefined;
  return (
    <div class="library-answer" aria-live="polite" aria-busy={answer.streaming}>
      <h3>{answer.question}</h3>
      {!parts && (
        <p class="generated">
          {answer.text}
          {answer.streaming && (
            <span class="cursor" aria-hidden="true">
              ▍
            </span>
          )}
        </p>
      )}
      {parts?.map((part, p) => (
        <div key={p}>
          <p class="generated">
            {answerSegments(part).map((segment, i) =>
              segment.kind === 'text' ? segment.text : <Marker key={i} n={segment.n} citation={segment.citation} onPlay={onPlay} />,
            )}
          </p>
          {part.citations.length > 0 ? (
            <ol class="sources" aria-label="Sources">
              {citedMoments(part).map(({ n, citation }) => (
                <li key={n}>
                  <Source n={n} citation={citation} onPlay={onPlay} />
                </li>
              ))}
            </ol>
          ) : (
            <p class="hint">This answer cites no moment.</p>
          )}
        </div>
      ))}
      {!answer.streaming && !parts && answer.text === '' && <p class="hint">The server sent no answer.</p>}
      {answer.incomplete && <p class="hint">The answer stopped before its end ({answer.incomplete}).</p>}
    </div>
  );
}
