/**
 * The messages between a model thread (model-thread.ts) and its worker (thread-main.ts). Plain data
 * only: images cross as copied bytes, results as structured clones (a Float32Array stays one).
 */

/** The frame models a thread can hold (TF.js ones and PaddleOCR on onnxruntime), by the name of their provider. */
export type ThreadModelName = 'centernet-coco' | 'blazeface' | 'face-api-resnet' | 'paddleocr-v4';

export type ThreadRequest =
  | { readonly type: 'load'; readonly id: number; readonly model: ThreadModelName; readonly options: unknown }
  | { readonly type: 'call'; readonly id: number; readonly model: ThreadModelName; readonly method: string; readonly args: unknown[] }
  | { readonly type: 'dispose'; readonly id: number; readonly model: ThreadModelName };

export type ThreadReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { readonly name: string; readonly message: string } };
