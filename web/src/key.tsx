import { useState } from 'preact/hooks';
import { Api } from './api';
import { describeError } from './lib/errors';

const STORE = 'vus-playground-api-key';

export const storedKey = (): string => localStorage.getItem(STORE) ?? '';

/**
 * The API key, kept in this browser's local storage only, and only once the server has taken it:
 * a wrong key is refused here, in the API's words, and the page stays signed out.
 */
export function KeyBar({ apiKey, onChange }: { apiKey: string; onChange: (key: string) => void }) {
  const [draft, setDraft] = useState(apiKey);
  const [checking, setChecking] = useState(false);
  const [problem, setProblem] = useState('');
  return (
    <form
      class="keybar"
      onSubmit={(event) => {
        event.preventDefault();
        const key = draft.trim();
        if (key === '') {
          setProblem('Type or paste an API key first.');
          return;
        }
        setChecking(true);
        setProblem('');
        // The cheapest call that needs a valid key.
        new Api(key)
          .call('GET', '/v1.2/indexes?page_limit=1')
          .then(
            () => {
              localStorage.setItem(STORE, key);
              onChange(key);
            },
            (error: unknown) => setProblem(`This key was not accepted: ${describeError(error)}`),
          )
          .finally(() => setChecking(false));
      }}
    >
      <label for="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        value={draft}
        placeholder="tlk_… (kept in this browser only)"
        aria-invalid={problem !== ''}
        aria-describedby={problem ? 'api-key-problem' : undefined}
        onInput={(e) => setDraft(e.currentTarget.value)}
      />
      <button type="submit" disabled={checking}>
        {checking ? 'Checking…' : 'Use key'}
      </button>
      {apiKey !== '' && (
        <button
          type="button"
          onClick={() => {
            localStorage.removeItem(STORE);
            setDraft('');
            setProblem('');
            onChange('');
          }}
        >
          Forget
        </button>
      )}
      <a href="/docs">API reference</a>
      {problem && (
        <p class="error" role="alert" id="api-key-problem">
          {problem}
        </p>
      )}
    </form>
  );
}
