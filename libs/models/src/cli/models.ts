/**
 * `npm run models -- <command>`: the downloadable models (CLIP, CLAP, Whisper) in MODELS_DIR.
 * Files come from HF_ENDPOINT (default the Hugging Face hub; a mirror laid out like it works too),
 * resume after a broken connection and are checked against the hub's checksums.
 */
import { parseArgs } from 'node:util';
import { loadModelsConfig, type ModelsConfig } from '../config';
import { isConfigured, modelCatalog, type CatalogModel } from '../hf/catalog';
import { fetchHubListing, pullModel, verifyModel, type PullProgress } from '../hf/pull';

const USAGE = `Usage: npm run models -- <command>

Commands:
  list                 the downloadable models: licence, size, whether they are in MODELS_DIR and used
  pull NAME...         download into MODELS_DIR (resumes; checks checksums). NAME: clip, clap, whisper,
                       whisper-tiny, whisper-base
  verify [NAME...]     re-check pulled files against their checksums, offline (default: every model present)

Environment: MODELS_DIR (default ./models), HF_ENDPOINT (default https://huggingface.co), HF_TOKEN,
MODELS_CLIP, MODELS_CLAP, MODELS_WHISPER (which model each service loads).`;

interface Hub {
  readonly endpoint: string;
  readonly token?: string;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0)} MB`;
}

/** One progress line: file, percentage and bytes; written over itself on a terminal. Pure. */
export function progressLine(progress: PullProgress): string {
  const { file, received, total } = progress;
  if (total === undefined || total === 0) return `${file}: ${megabytes(received)}`;
  const share = Math.min(1, received / total);
  const width = 24;
  const filled = Math.round(share * width);
  return `${file} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0)}% of ${megabytes(total)}`;
}

function progressWriter(): (progress: PullProgress) => void {
  const tty = process.stderr.isTTY;
  let lastShare = -1;
  return (progress) => {
    if (tty) {
      process.stderr.write(`\r${progressLine(progress)}\u001b[K`);
      if (progress.total !== undefined && progress.received >= progress.total) process.stderr.write('\n');
      return;
    }
    // Not a terminal (CI logs): a line per quarter of each file, not one per chunk.
    const share = progress.total ? Math.floor((progress.received / progress.total) * 4) : 0;
    if (share !== lastShare || progress.received === progress.total) {
      lastShare = share;
      process.stderr.write(`${progressLine(progress)}\n`);
    }
  };
}

/** The hub's size of a model's files, or undefined when the hub cannot be asked (offline). */
async function hubSize(hub: Hub, model: CatalogModel): Promise<number | undefined> {
  const listing = await fetchHubListing({ ...hub, modelId: model.modelId }).catch(() => undefined);
  if (!listing) return undefined;
  return model.files.reduce((sum, file) => sum + (listing.get(file)?.size ?? 0), 0);
}

async function list(config: ModelsConfig, hub: Hub): Promise<void> {
  for (const model of modelCatalog(config)) {
    const [local, remote] = await Promise.all([verifyModel(config.modelsDir, model.modelId, model.files), hubSize(hub, model)]);
    const here = local.state === 'missing' ? 'not in MODELS_DIR' : `${local.state} in MODELS_DIR (${megabytes(local.bytes)})`;
    const used = isConfigured(config, model) ? 'used' : `not used (set ${model.variable}=${model.modelId})`;
    const size = remote === undefined ? 'size: ask the hub (unreachable now)' : `size ${megabytes(remote)}`;
    process.stdout.write(
      `${model.name.padEnd(13)} ${model.modelId}\n  ${here}; ${used}; ${size}; ${model.licence}\n  adds ${model.adds}\n`,
    );
  }
}

async function pull(config: ModelsConfig, hub: Hub, names: string[]): Promise<void> {
  const catalog = modelCatalog(config);
  const models = names.map((name) => {
    const model = catalog.find((m) => m.name === name);
    if (!model) throw new Error(`Unknown model "${name}". Known: ${catalog.map((m) => m.name).join(', ')}.`);
    return model;
  });
  for (const model of models) {
    process.stderr.write(`Pulling ${model.name} (${model.modelId}) from ${hub.endpoint}\n`);
    const files = await pullModel({
      ...hub,
      modelId: model.modelId,
      files: model.files,
      modelsDir: config.modelsDir,
      onProgress: progressWriter(),
    });
    const fetched = files.filter((f) => f.state === 'downloaded');
    const bytes = files.reduce((sum, f) => sum + f.size, 0);
    process.stdout.write(
      `${model.name}: ${files.length} files, ${megabytes(bytes)} in MODELS_DIR (${fetched.length} downloaded, ${files.length - fetched.length} already there), checksums match\n`,
    );
    process.stdout.write(
      isConfigured(config, model)
        ? `  restart the services to use it: it gives ${model.adds}\n`
        : `  to use it, set ${model.variable}=${model.modelId} and restart the services\n`,
    );
  }
}

async function verify(config: ModelsConfig, names: string[]): Promise<boolean> {
  const catalog = modelCatalog(config);
  const unique = [...new Map(catalog.map((m) => [m.modelId, m])).values()];
  const chosen = names.length > 0 ? catalog.filter((m) => names.includes(m.name)) : unique;
  const unknown = names.filter((name) => !catalog.some((m) => m.name === name));
  if (unknown.length > 0) throw new Error(`Unknown model "${unknown[0]}". Known: ${catalog.map((m) => m.name).join(', ')}.`);
  let ok = true;
  for (const model of chosen) {
    const report = await verifyModel(config.modelsDir, model.modelId, model.files);
    if (report.state === 'missing' && names.length === 0) continue;
    if (report.state === 'missing' || report.state === 'damaged') ok = false;
    const detail = report.state === 'unrecorded' ? ' (files present; not pulled by this tool, so no checksums to compare)' : '';
    process.stdout.write(`${model.name} (${model.modelId}): ${report.state}${detail}\n`);
    for (const problem of report.problems) process.stdout.write(`  ${problem}\n`);
  }
  return ok;
}

export async function runModelsCli(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true });
  const [command, ...names] = positionals;
  const config = loadModelsConfig(env);
  const hub: Hub = { endpoint: env.HF_ENDPOINT || 'https://huggingface.co', ...(env.HF_TOKEN ? { token: env.HF_TOKEN } : {}) };
  switch (command) {
    case 'list':
      await list(config, hub);
      return 0;
    case 'pull':
      if (names.length === 0) break;
      await pull(config, hub, names);
      return 0;
    case 'verify':
      return (await verify(config, names)) ? 0 : 1;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

if (require.main === module) {
  runModelsCli(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`\n${error.message}\n`);
      process.exit(1);
    },
  );
}
