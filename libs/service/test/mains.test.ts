/**
 * A service's main.ts is its kit definition and wiring only (issue 13: under 60 lines). What grows
 * past that belongs in the service's own modules (env.ts, its domain) or in the kit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SERVICES = path.resolve(__dirname, '../../../services');
/** Every entry point: a service's src/main.ts and any process of its own (task-service's src/worker/main.ts). */
const mains = readdirSync(SERVICES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) =>
    readdirSync(path.join(SERVICES, entry.name, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => path.basename(file) === 'main.ts')
      .map((file) => [`${entry.name}/src/${file}`, path.join(SERVICES, entry.name, 'src', file)] as const),
  );

describe('services/*/src/**/main.ts', () => {
  it.each(mains)('%s: under 60 lines', (_name, file) => {
    expect(readFileSync(file, 'utf8').trimEnd().split('\n').length).toBeLessThan(60);
  });
});
