// First: tracing starts before the modules it instruments are loaded (see telemetry.ts).
import './telemetry';
import { runMain, type Logger } from '@vus/core';
import { formatMediaToolsReport, mediaToolsReport } from '@vus/media';
import { createModelRegistry, describeModels, describeSpeechProviders, loadModelsConfig } from '@vus/models';
import { startEmbedded as startWith } from './embedded';

export { EMBEDDED_STATE_FILE, type EmbeddedState } from './data-dir';

/** Embedded mode, configured from `env` (default: this process's environment). */
export const startEmbedded = (env: Readonly<Record<string, string | undefined>> = process.env, logger?: Logger) => startWith(env, logger);

if (require.main === module) {
  runMain(async () => {
    const running = await startEmbedded();
    process.stdout.write(`Base URL: ${running.url}\n`);
    if (running.newKey) process.stdout.write(`API key: ${running.newKey}\n`);
    process.stdout.write(`Data: ${running.dataDir} (Ctrl-C to stop)\n`);
    process.stdout.write(
      `Media: ${await mediaToolsReport().then(formatMediaToolsReport, (error: Error) => `unavailable: ${error.message}`)}\n`,
    );
    // Which models run here and which recogniser transcribes videos without subtitles, or why none does (a probe: nothing loads).
    const models = await createModelRegistry(loadModelsConfig(process.env)).probe();
    process.stdout.write(`Models: ${describeModels(models)}\n`);
    process.stdout.write(`Speech: ${describeSpeechProviders(models).message}\n`);
    return running;
  });
}
