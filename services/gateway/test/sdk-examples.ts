/**
 * Runs an official 1.x SDK example (node_modules/twelvelabs-js/examples/<file>) as written: its
 * TwelveLabs client from API_KEY and TWELVELABS_BASE_URL, its assets (its __dirname is the
 * examples folder, or one with some of its assets swapped for local media), its own polling. The
 * only edits are the ones a user makes before running it (`replacements`: an index id for its
 * placeholder, local URLs for remote media, since tests never reach the network; a remote URL left
 * over is an error). The example's promise is kept so the test knows when it is done, and what it
 * printed is returned.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TwelveLabs } from 'twelvelabs-js';
import ts from 'typescript';

/** This module's require: what an example's packages (twelvelabs-js, fs) load through. */
const nodeRequire: NodeJS.Require = require;

const SDK_EXAMPLES_DIR = join(dirname(require.resolve('twelvelabs-js/package.json')), 'examples');

/**
 * A folder to run the examples from (their __dirname) whose assets/ is the SDK's, but for the files
 * `swapped` names (asset name to local file): the SDK's own video is 160 s, and an example that
 * embeds it whole spends minutes on what a shorter cut of it shows as well.
 */
export function sdkExamplesWithAssets(swapped: Readonly<Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vus-sdk-examples-'));
  mkdirSync(join(dir, 'assets'));
  for (const name of readdirSync(join(SDK_EXAMPLES_DIR, 'assets')))
    symlinkSync(swapped[name] ?? join(SDK_EXAMPLES_DIR, 'assets', name), join(dir, 'assets', name));
  return dir;
}

/** How an example written as a program starts its `main()` (examples/multipart_uploads.ts). */
const PROGRAM_MAIN = '\nif (require.main === module) {';
/** How an example calls its `main()` at the end, exiting on an error (examples/knowledgeStores.ts). */
const MAIN_CATCH = '\nmain().catch(';

/** An example file's source with the test's `replacements` made; a remote URL left over is an error. */
function exampleSource(file: string, replacements: readonly (readonly [string, string])[]): string {
  let source = readFileSync(join(SDK_EXAMPLES_DIR, file), 'utf8');
  for (const [from, to] of replacements) source = source.split(from).join(to);
  if (/https?:\/\/(?!127\.0\.0\.1)/.test(source)) throw new Error(`${file} still names a remote URL`);
  return source;
}

export async function runSdkExample(
  file: string,
  replacements: readonly (readonly [string, string])[] = [],
  dir: string = SDK_EXAMPLES_DIR,
): Promise<string[]> {
  let source = exampleSource(file, replacements);
  // The example starts its async main without awaiting it, or (multipart_uploads.ts) calls main()
  // when run as a program, or (knowledgeStores.ts) calls it and exits on its error: started here
  // each way, and its promise kept.
  if (source.includes('\n(async () => {')) source = source.replace('\n(async () => {', '\nexports.done = (async () => {');
  else if (source.includes(PROGRAM_MAIN)) source = source.replace(PROGRAM_MAIN, '\nexports.done = main();\nif (false) {');
  else if (source.includes(MAIN_CATCH)) source = source.replace(MAIN_CATCH, '\nexports.done = main();\nif (false) main().catch(');
  else throw new Error(`${file} does not start with an async main`);
  const printed: string[] = [];
  const console = { log: (...values: unknown[]) => printed.push(values.map(String).join(' ')) };
  // The module wrapper Node itself gives a CommonJS file.
  const ModuleFunction = Object.getPrototypeOf(function () {}).constructor as new (...args: string[]) => (...values: unknown[]) => void;
  // The example's own modules (`./_ksHelpers`) load from the examples folder, with the same substitutions, __dirname and console.
  const loaded = new Map<string, Record<string, unknown>>();
  const requireOf = (id: string): unknown => {
    if (!id.startsWith('./')) return nodeRequire(id);
    if (!loaded.has(id)) loaded.set(id, run(exampleSource(`${id.slice(2)}.ts`, replacements), {}));
    return loaded.get(id);
  };
  const run = <E extends Record<string, unknown>>(text: string, exports: E): E => {
    const code = ts.transpileModule(text, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: true },
    }).outputText;
    new ModuleFunction('exports', 'require', '__dirname', 'console', code)(exports, requireOf, dir, console);
    return exports;
  };
  const exports = run<{ done?: Promise<void> }>(source, {});
  try {
    await exports.done;
  } catch (error) {
    // `printed` rides along, so a test can still check what the example did before it failed.
    throw Object.assign(new Error(`${file} failed after printing:\n${printed.join('\n')}\n${String(error)}`, { cause: error }), {
      printed,
    });
  }
  return printed;
}

/** The lines an example printed under `title` (a line of its own), up to the next line that does not start with a space. */
export function printedUnder(printed: readonly string[], title: string): string[] {
  const start = printed.indexOf(title);
  if (start < 0) throw new Error(`nothing printed ${JSON.stringify(title)}:\n${printed.join('\n')}`);
  const rest = printed.slice(start + 1);
  const end = rest.findIndex((line) => !line.startsWith(' '));
  return end < 0 ? rest : rest.slice(0, end);
}

/**
 * Runs one search of an SDK example as written: its statements from the `console.log("<title>: ")`
 * that opens the search to the next `console.log("Search …`, with the example's `client` and
 * `index` given (a client of the caller's, an index of the caller's), and what it printed returned.
 */
export async function runSdkExampleSection(file: string, title: string, client: TwelveLabs, indexId: string): Promise<string[]> {
  const source = readFileSync(join(SDK_EXAMPLES_DIR, file), 'utf8');
  const start = source.indexOf(`console.log("${title}: ");`);
  const end = source.indexOf('console.log("Search', start + 1);
  if (start < 0 || end < 0) throw new Error(`${file} has no section ${JSON.stringify(title)} followed by another search`);
  const code = ts.transpileModule(`let searchPager;\n${source.slice(start, end)}`, {
    compilerOptions: { target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const printed: string[] = [];
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<void>;
  const index = await client.indexes.retrieve(indexId);
  await new AsyncFunction('client', 'index', 'console', code)(client, index, { log: (line: string) => printed.push(line) });
  return printed;
}

/**
 * Points the examples at a server as a user does, through the environment they read (API_KEY and
 * TWELVELABS_BASE_URL, v1.3); returns what puts the environment back as it was.
 */
export function pointSdkExamplesAt(baseUrl: string, apiKey: string): () => void {
  const saved = { TWELVELABS_BASE_URL: process.env.TWELVELABS_BASE_URL, API_KEY: process.env.API_KEY };
  process.env.TWELVELABS_BASE_URL = `${baseUrl}/v1.3`;
  process.env.API_KEY = apiKey;
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
