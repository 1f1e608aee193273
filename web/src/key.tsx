import { useState } from 'preact/hooks';

const STORE = 'vus-playground-api-key';

export const storedKey = (): string => localStorage.getItem(STORE) ?? '';

/** The API key, kept in this browser's local storage only. */
export function KeyBar({ apiKey, onChange }: { apiKey: string; onChange: (key: string) => void }) {
  const [draft, setDraft] = useState(apiKey);
  return (
    <form
      class="keybar"
      onSubmit={(event) => {
        event.preventDefault();
        const key = draft.trim();
        localStorage.setItem(STORE, key);
        onChange(key);
      }}
    >
      <label for="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        value={draft}
        placeholder="tlk_… (kept in this browser only)"
        onInput={(e) => setDraft(e.currentTarget.value)}
      />
      <button type="submit">Use key</button>
      {apiKey !== '' && (
        <button
          type="button"
          onClick={() => {
            localStorage.removeItem(STORE);
            setDraft('');
            onChange('');
          }}
        >
          Forget
        </button>
      )}
      <a href="/docs">API reference</a>
    </form>
  );
}
