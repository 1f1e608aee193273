import { paddleOcrProvider } from '../../ocr/paddle-ocr';
import type { ProviderDefinition } from '../../registry';
import type {
  CapabilityTypes,
  DetectedFace,
  DetectedObject,
  Disposable,
  EmbeddedFace,
  FaceDetector,
  FaceEmbedder,
  ImageInput,
  ObjectDetector,
  RecognisedLine,
  TextReader,
} from '../../types';
import { blazeFaceProvider } from '../blazeface';
import { cocoDetectorProvider } from '../coco-detector';
import { FACE_EMBEDDING_DIMENSIONS, faceRecognitionProvider } from '../face-recognition';
import { ModelThread } from './model-thread';
import type { ThreadModelName } from './protocol';

/**
 * The frame models' providers (text reader, object detector, face detector, face embedder), run in
 * `threads` worker threads: 0 in-process as before; 1 all four in one thread; 2 the object detector
 * in one, the text reader and the two face models in the other; 3 the text reader in a third of its
 * own. Their checks run here (cheap, no weights); their loads, in the thread, on first use as before.
 */
export function visionProviders(threads: number): ProviderDefinition[] {
  const inProcess = [paddleOcrProvider(), cocoDetectorProvider(), blazeFaceProvider(), faceRecognitionProvider()] as const;
  if (threads <= 0) return [...inProcess];
  const objects = new ModelThread('vus-vision-objects');
  const faces = threads >= 2 ? new ModelThread('vus-vision-faces') : objects;
  const text = threads >= 3 ? new ModelThread('vus-vision-text') : faces;
  const [ocr, coco, blazeFace, recognition] = inProcess;
  return [
    threaded(ocr, text, (model) => new ThreadTextReader(model)),
    threaded(coco, objects, (model) => new ThreadObjectDetector(model)),
    threaded(blazeFace, faces, (model) => new ThreadFaceDetector(model)),
    threaded(recognition, faces, (model) => new ThreadFaceEmbedder(model)),
  ];
}

/** The definition with its model loaded in `thread` and used through a stand-in of the same interface. */
export function threaded<C extends 'text_reader' | 'object_detector' | 'face_detector' | 'face_embedder'>(
  definition: ProviderDefinition<C>,
  thread: ModelThread,
  standIn: (model: ThreadModel) => CapabilityTypes[C] & Disposable,
): ProviderDefinition<C> {
  const name = definition.name as ThreadModelName;
  return {
    ...definition,
    load: async () => {
      await thread.load(name);
      return standIn(new ThreadModel(thread, name));
    },
  };
}

/** One model loaded in a thread. A field of the stand-ins, not a base class: the registry times their methods only. */
class ThreadModel {
  constructor(
    private readonly thread: ModelThread,
    private readonly name: ThreadModelName,
  ) {}

  call<T>(method: string, ...args: unknown[]): Promise<T> {
    return this.thread.call<T>(this.name, method, args);
  }

  dispose(): Promise<void> {
    return this.thread.dispose(this.name);
  }
}

class ThreadTextReader implements TextReader, Disposable {
  constructor(private readonly model: ThreadModel) {}

  readText(image: ImageInput): Promise<RecognisedLine[]> {
    return this.model.call('readText', image);
  }

  dispose(): Promise<void> {
    return this.model.dispose();
  }
}

class ThreadObjectDetector implements ObjectDetector, Disposable {
  constructor(private readonly model: ThreadModel) {}

  detectObjects(image: ImageInput): Promise<DetectedObject[]> {
    return this.model.call('detectObjects', image);
  }

  dispose(): Promise<void> {
    return this.model.dispose();
  }
}

class ThreadFaceDetector implements FaceDetector, Disposable {
  constructor(private readonly model: ThreadModel) {}

  detectFaces(image: ImageInput): Promise<DetectedFace[]> {
    return this.model.call('detectFaces', image);
  }

  dispose(): Promise<void> {
    return this.model.dispose();
  }
}

class ThreadFaceEmbedder implements FaceEmbedder, Disposable {
  readonly dimensions = FACE_EMBEDDING_DIMENSIONS;

  constructor(private readonly model: ThreadModel) {}

  embedFaces(image: ImageInput): Promise<EmbeddedFace[]> {
    return this.model.call('embedFaces', image);
  }

  embedDetectedFaces(image: ImageInput, faces: readonly DetectedFace[]): Promise<EmbeddedFace[]> {
    if (faces.length === 0) return Promise.resolve([]);
    return this.model.call('embedDetectedFaces', image, faces);
  }

  dispose(): Promise<void> {
    return this.model.dispose();
  }
}
