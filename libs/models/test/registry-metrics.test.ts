/*
 * Model latency per provider: every async call of a loaded model is counted in vus.model.duration
 * by provider, call and outcome — the model's own methods only, never a library model held in a field.
 */
import { recordMetrics, type RecordedMetrics } from '@vus/telemetry/testing';
import { ModelRegistry, type ProviderDefinition, type RecognisedLine, type TextReader } from '../src';

/** A reader whose work is done by a callable "library model" in a field, as the transformers.js ones are. */
class FieldModelReader implements TextReader {
  readonly libraryModel = Object.assign(async () => [] as RecognisedLine[], { dispose: async () => undefined });
  async readText(): Promise<RecognisedLine[]> {
    if ((this as { fail?: boolean }).fail) throw new Error('unreadable');
    return this.libraryModel();
  }
  async dispose(): Promise<void> {
    await this.libraryModel.dispose();
  }
}

const definition = (reader: TextReader): ProviderDefinition<'text_reader'> => ({
  capability: 'text_reader',
  name: 'field-reader',
  model: 'field-model',
  kind: 'bundled',
  check: async () => undefined,
  load: async () => reader,
});

let recorded: RecordedMetrics;
beforeAll(() => {
  recorded = recordMetrics();
});
afterAll(async () => {
  await recorded.stop();
});

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const resource of await recorded.collect()) {
    for (const scope of resource.scopeMetrics) {
      for (const metric of scope.metrics.filter((m) => m.descriptor.name === 'vus.model.duration')) {
        for (const point of metric.dataPoints) {
          const a = point.attributes;
          out[`${String(a['vus.model.provider'])}/${String(a['vus.model.task'])}/${String(a['vus.outcome'])}`] = (
            point.value as { count: number }
          ).count;
        }
      }
    }
  }
  return out;
}

it('counts each call by provider, call and outcome, and leaves the library model in a field alone', async () => {
  const model = new FieldModelReader();
  const registry = new ModelRegistry([definition(model)]);
  const loaded = await registry.get('text_reader');
  expect(loaded).toBe(model);
  await loaded.readText(Buffer.alloc(0));
  await loaded.readText(Buffer.alloc(0));
  (model as { fail?: boolean }).fail = true;
  await expect(loaded.readText(Buffer.alloc(0))).rejects.toThrow('unreadable');
  expect(await counts()).toEqual({ 'field-reader/readText/ok': 2, 'field-reader/readText/error': 1 });
  // The field still holds the library's callable model (with its own methods), so dispose works.
  expect(typeof model.libraryModel.dispose).toBe('function');
  await registry.dispose();
});
