import type { ProviderStatus } from './types';

/**
 * What to say about models at start (after "Models: "): which run here, bundled (shipped with npm
 * install) or downloaded into MODELS_DIR, and which downloadable ones are absent, with what stands
 * in for them. Pure; the status is a probe's (nothing loads).
 */
export function describeModels(status: readonly ProviderStatus[]): string {
  const usable = status.filter((s) => s.state !== 'unavailable');
  const names = (list: readonly ProviderStatus[]) => [...new Set(list.map((s) => s.provider))].join(', ');
  const bundled = usable.filter((s) => s.kind === 'bundled');
  const downloaded = usable.filter((s) => s.kind === 'downloadable');
  const absent = status.filter((s) => s.state === 'unavailable' && s.kind === 'downloadable');
  const broken = status.filter((s) => s.state === 'unavailable' && s.kind === 'bundled');
  return [
    bundled.length > 0 ? `bundled ${names(bundled)}` : 'no bundled model',
    downloaded.length > 0 ? `downloaded ${downloaded.map((s) => `${s.provider} (${s.model})`).join(', ')}` : '',
    broken.length > 0 ? `not installed ${names(broken)}` : '',
    absent.length > 0 ? `not downloaded ${names(absent)}: the bundled ones stand in (\`npm run models -- list\` says what each adds)` : '',
  ]
    .filter(Boolean)
    .join('; ');
}
