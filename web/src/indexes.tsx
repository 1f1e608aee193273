import { useEffect, useState } from 'preact/hooks';
import { readIndex, type Api, type Engine, type Index, type Json } from './api';
import { describeError } from './lib/errors';

interface EngineChoice {
  name: string;
  family: string;
  allowed: string[];
}

/** Index list and creation with engines and their options (v1.2 GET /engines says what each allows). */
export function Indexes({
  api,
  selected,
  onSelect,
  refreshKey,
}: {
  api: Api;
  selected: Index | undefined;
  onSelect: (index: Index | undefined) => void;
  refreshKey: number;
}) {
  const [indexes, setIndexes] = useState<Index[]>([]);
  const [error, setError] = useState('');
  const [creating, setCreating] = useState(false);

  const load = async (selectId?: string) => {
    try {
      const page = await api.call<{ data: Json[] }>('GET', '/v1.2/indexes?page_limit=50&sort_by=created_at&sort_option=desc');
      const found = page.data.map(readIndex);
      setIndexes(found);
      setError('');
      const wanted = found.find((index) => index.id === (selectId ?? selected?.id)) ?? (selectId ? undefined : found[0]);
      onSelect(wanted);
    } catch (e) {
      setError(describeError(e));
    }
  };
  useEffect(() => {
    void load();
  }, [api, refreshKey]);

  return (
    <section aria-labelledby="indexes-title">
      <h2 id="indexes-title">Indexes</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <label for="index-select">Index</label>
      <div class="row">
        <select
          id="index-select"
          value={selected?.id ?? ''}
          onChange={(e) => onSelect(indexes.find((index) => index.id === e.currentTarget.value))}
        >
          {indexes.length === 0 && <option value="">No index yet</option>}
          {indexes.map((index) => (
            <option key={index.id} value={index.id}>
              {index.name} ({index.videoCount} video{index.videoCount === 1 ? '' : 's'})
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New index
        </button>
      </div>
      {selected && (
        <p class="hint">{selected.engines.map((engine: Engine) => `${engine.name}: ${engine.options.join(', ')}`).join(' · ')}</p>
      )}
      {creating && (
        <CreateIndex
          api={api}
          onCreated={(id) => {
            setCreating(false);
            void load(id);
          }}
        />
      )}
    </section>
  );
}

function CreateIndex({ api, onCreated }: { api: Api; onCreated: (id: string) => void }) {
  const [engines, setEngines] = useState<EngineChoice[]>([]);
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Record<string, string[]>>({});
  const [thumbnails, setThumbnails] = useState(true);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.call<{ data: Json[] }>('GET', '/v1.2/engines?page_limit=50').then(
      (page) => {
        const all = page.data.map((raw) => ({
          name: typeof raw.engine_name === 'string' ? raw.engine_name : String(raw._id),
          family: typeof raw.engine_family === 'string' ? raw.engine_family : '',
          allowed: Array.isArray(raw.allowed_engine_options) ? raw.allowed_engine_options.map(String) : [],
        }));
        setEngines(all);
        // The newest engine of each family with all its options: search and "Ask the video" both work.
        const newest = (family: string) => [...all].reverse().find((engine) => engine.family === family || engine.name.startsWith(family));
        const defaults = [newest('marengo'), newest('pegasus')].filter((engine) => engine !== undefined);
        setChosen(Object.fromEntries(defaults.map((engine) => [engine.name, engine.allowed])));
      },
      (e) => setError(describeError(e)),
    );
  }, [api]);

  const toggle = (engine: string, option: string, on: boolean) => {
    const current = chosen[engine] ?? [];
    const next = on ? [...current, option] : current.filter((o) => o !== option);
    const copy = { ...chosen, [engine]: next };
    if (next.length === 0) delete copy[engine];
    setChosen(copy);
  };

  return (
    <form
      class="panel"
      aria-label="New index"
      onSubmit={(event) => {
        event.preventDefault();
        if (name.trim() === '') {
          setError('Type a name for the index.');
          return;
        }
        setBusy(true);
        const body = {
          index_name: name.trim(),
          engines: Object.entries(chosen).map(([engine_name, engine_options]) => ({ engine_name, engine_options })),
          ...(thumbnails ? { addons: ['thumbnail'] } : {}),
        };
        api.call<{ _id: string }>('POST', '/v1.2/indexes', body).then(
          (created) => onCreated(created._id),
          (e) => {
            setError(describeError(e));
            setBusy(false);
          },
        );
      }}
    >
      <label for="index-name">Name</label>
      <input id="index-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      {engines.map((engine) => (
        <fieldset key={engine.name}>
          <legend>{engine.name}</legend>
          {engine.allowed.map((option) => (
            <label key={option} class="check">
              <input
                type="checkbox"
                checked={(chosen[engine.name] ?? []).includes(option)}
                onChange={(e) => toggle(engine.name, option, e.currentTarget.checked)}
              />
              {option}
            </label>
          ))}
        </fieldset>
      ))}
      <label class="check">
        <input type="checkbox" checked={thumbnails} onChange={(e) => setThumbnails(e.currentTarget.checked)} />
        thumbnails
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Create index
      </button>
    </form>
  );
}
