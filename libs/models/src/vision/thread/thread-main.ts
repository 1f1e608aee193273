import { parentPort } from 'node:worker_threads';
import { bundledPaddleOcrFiles, PaddleOcr } from '../../ocr/paddle-ocr';
import type { Disposable } from '../../types';
import { BlazeFace } from '../blazeface';
import { CocoDetector } from '../coco-detector';
import { FaceRecognition } from '../face-recognition';
import type { ThreadModelName, ThreadReply, ThreadRequest } from './protocol';

/**
 * A model thread's worker: loads the models it is asked for (its own TF.js WASM runtime, tfjs.ts;
 * onnxruntime-node's sessions, whose runs block the thread that calls them) and answers calls on
 * them. Requests are handled as they come; each model's SerialQueue keeps its own calls one at a time.
 */

const loaders: Record<ThreadModelName, (options: never) => Promise<Disposable>> = {
  'centernet-coco': (options) => CocoDetector.load(options),
  blazeface: (options) => BlazeFace.load(options),
  'face-api-resnet': (options) => FaceRecognition.load(options),
  'paddleocr-v4': (options) => PaddleOcr.load(bundledPaddleOcrFiles(), options),
};

const models = new Map<ThreadModelName, Disposable>();

async function handle(request: ThreadRequest): Promise<unknown> {
  switch (request.type) {
    case 'load':
      if (!Object.hasOwn(loaders, request.model)) throw new Error(`no model ${request.model} runs in a model thread`);
      if (!models.has(request.model)) models.set(request.model, await loaders[request.model](request.options as never));
      return undefined;
    case 'dispose': {
      const model = models.get(request.model);
      models.delete(request.model);
      await model?.dispose();
      return undefined;
    }
    case 'call': {
      const model = models.get(request.model) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>> | undefined;
      if (!model) throw new Error(`${request.model} is not loaded in this thread`);
      // Images arrive as Uint8Arrays (a Buffer does not survive the structured clone as one).
      const args = request.args.map((arg) => (arg instanceof Uint8Array ? Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength) : arg));
      return model[request.method]!(...args);
    }
  }
}

const port = parentPort;
if (!port) throw new Error('thread-main.js runs only as a worker thread (model-thread.ts starts it)');
port.on('message', (request: ThreadRequest) => {
  handle(request).then(
    (value) => port.postMessage({ id: request.id, ok: true, value } satisfies ThreadReply),
    (error: unknown) => {
      const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
      port.postMessage({ id: request.id, ok: false, error: { name, message } } satisfies ThreadReply);
    },
  );
});
