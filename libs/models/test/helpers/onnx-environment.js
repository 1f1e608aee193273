/**
 * A jest node environment whose typed-array and ArrayBuffer constructors are the host realm's.
 *
 * onnxruntime-node's native binding creates its output arrays in the host realm, while
 * onnxruntime-common (loaded inside jest's sandbox) checks them with `instanceof` against the
 * sandbox's constructors, so every inference fails under plain jest with "A float32 tensor's data
 * must be type of function Float32Array()". Outside jest there is one realm and no problem.
 * Test files that run ONNX models opt in with a `@jest-environment` docblock.
 */
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

class OnnxEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = OnnxEnvironment;
