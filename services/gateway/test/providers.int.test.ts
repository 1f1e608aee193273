/*
 * The speech recogniser in the engines listing and /health (issue 22): the gateway asks
 * embed-service (whose registry is the indexing worker's) which providers can load, and says
 * which recogniser transcribes videos without subtitles — or none, and why, with no internal path.
 */
import { createLogger } from '@vus/core';
import { startEmbedService, type RunningEmbedService } from '@vus/embed-service';
import { InProcessEventBus } from '@vus/events';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { ModelRegistry, pocketSphinxProvider, POCKETSPHINX_DEFAULTS, whisperProvider, type ProviderDefinition } from '@vus/models';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../src/main';

const logger = createLogger({ service: 'test', level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'vus-providers-'));
const modelsConfig = { modelsDir: join(dir, 'models'), allowDownload: false, clipModel: 'none/clip', whisperModel: 'Xenova/whisper-tiny' };

/** A recogniser whose files are there (it is never loaded: the listing only checks). */
const installed = (name: string): ProviderDefinition<'speech_recognizer'> => ({
  capability: 'speech_recognizer',
  name,
  model: name,
  kind: 'bundled',
  check: async () => undefined,
  load: async () => ({ transcribe: async () => [] }),
});

interface Setup {
  index: RunningIndexService;
  embed?: RunningEmbedService | undefined;
  gateway: RunningGateway;
  models?: ModelRegistry | undefined;
}
const setups: Setup[] = [];

async function gatewayWith(models: ModelRegistry | undefined): Promise<string> {
  const index = await startIndexService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus: new InProcessEventBus(),
    logger,
  });
  const embed = models
    ? await startEmbedService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger, models })
    : undefined;
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    database: { kind: 'pglite', dataDir: 'memory://' },
    indexServiceAddress: index.address,
    embedServiceAddress: embed?.address,
    logger,
  });
  setups.push({ index, embed, gateway, models });
  const org = await gateway.keys.createOrganization('providers');
  apiKey = (await gateway.keys.createKey(org.id, 'test')).secret;
  return gateway.url;
}
let apiKey = '';

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { 'x-api-key': apiKey } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

afterAll(async () => {
  for (const { gateway, embed, index, models } of setups) {
    await gateway.stop();
    await embed?.stop();
    await index.stop();
    await models?.dispose();
  }
  rmSync(dir, { recursive: true, force: true });
});

it('names PocketSphinx when Whisper is not in MODELS_DIR, in every version’s engines listing and in /health', async () => {
  const url = await gatewayWith(new ModelRegistry([whisperProvider(modelsConfig), installed('pocketsphinx')]));
  const speech = { provider: 'pocketsphinx', source: 'bundled' };
  for (const version of ['v1.1', 'v1.2', 'v1.3']) {
    const listing = await getJson(`${url}/${version}/engines`);
    expect(listing).toMatchObject({ data: expect.any(Array), providers: { speech } });
    expect((listing.data as unknown[]).length).toBeGreaterThan(0);
  }
  // Without CLIP or CLAP files the API's model names are the bundled concept embedding's, and the
  // visual vectors the bundled scene descriptor's.
  const embeddings = Object.fromEntries([
    ...['Marengo-retrieval-2.6', 'Marengo-retrieval-2.7', 'marengo3.0'].map((name) => [
      name,
      { provider: 'concept-embedding', source: 'bundled', available: true },
    ]),
    ['scene', { provider: 'scene-descriptor', source: 'bundled', available: true }],
  ]);
  expect(await getJson(`${url}/health`)).toEqual({ status: 'ok', providers: { speech, embeddings } });
}, 120_000);

it('says none, and why, when no recogniser is installed — without MODELS_DIR or the binary’s folder', async () => {
  const hidden = { ...POCKETSPHINX_DEFAULTS, binary: join(dir, 'hidden', 'pocketsphinx_continuous') };
  const url = await gatewayWith(new ModelRegistry([whisperProvider(modelsConfig), pocketSphinxProvider(hidden)]));
  const { providers } = await getJson(`${url}/v1.3/engines`);
  expect(providers).toMatchObject({
    speech: {
      provider: 'none',
      reason: expect.stringMatching(
        /^videos without subtitles or a transcription file are indexed without speech \(whisper: Whisper model Xenova\/whisper-tiny is not in MODELS_DIR .*; pocketsphinx: the speech recogniser is not installed: pocketsphinx_continuous was not found \(install the Debian packages pocketsphinx pocketsphinx-en-us\)\)$/,
      ),
    },
  });
  expect(JSON.stringify(providers)).not.toContain(dir);
}, 120_000);

it('lists the engines without `providers` when no embed-service is configured', async () => {
  const url = await gatewayWith(undefined);
  const listing = await getJson(`${url}/v1.2/engines`);
  expect(listing).toHaveProperty('data');
  expect(listing).not.toHaveProperty('providers');
  expect(await getJson(`${url}/health`)).toEqual({ status: 'ok' });
}, 120_000);
