import { ApiError, errors, isId, type Clock, type Logger } from '@vus/core';
import type { BlobStore } from '@vus/blob';
import type { EmbeddedFace, FaceEmbedder } from '@vus/models';
import sharp from 'sharp';
import type { ReferenceAssetFile, ReferenceFaceStore, StoredReferenceFace } from './reference-face-store';

/**
 * Entity search's reference faces (issue 32 §1): each image asset of an entity embedded by the
 * same face model the indexing worker embeds video frames with (face_embedder), so an entity's
 * faces and a video's face tracks are compared in one space (search-service). Embedded on first
 * need and kept per asset: warmed when an entity is created or given assets, and completed by the
 * search that needs them if that has not finished (or the process restarted meanwhile).
 */

/** A reference image larger than this is not read (no face is taken from it): bounded memory. */
export const MAX_REFERENCE_IMAGE_BYTES = 20 * 1024 * 1024;
/**
 * Images without a face (an object, a logo, a place) are matched by the visual embedding instead
 * (search-service, as a query of several images): at most this many per entity, each sent as a JPEG
 * of at most VISUAL_REFERENCE_SIDE px (the visual models look at 224 px), so an answer stays small.
 */
export const MAX_VISUAL_REFERENCES = 5;
const VISUAL_REFERENCE_SIDE = 512;

/**
 * The face an image stands for: the largest one (a reference image is a picture of the entity,
 * whose face is the subject), the detector's score breaking ties; undefined without faces. Pure.
 */
export function referenceFace(faces: readonly EmbeddedFace[]): EmbeddedFace | undefined {
  let best: EmbeddedFace | undefined;
  for (const face of faces) {
    const [area, bestArea] = [face.box.width * face.box.height, best ? best.box.width * best.box.height : -1];
    if (!best || area > bestArea || (area === bestArea && face.score > best.score)) best = face;
  }
  return best;
}

export interface EntityReferenceFaces {
  entityId: string;
  faces: { assetId: string; embedding: Float32Array }[];
  assetsWithoutFace: string[];
  /** Reference images still being processed: not embedded yet. */
  assetsNotReady: string[];
  /** With `withImages`: the images without a face (MAX_VISUAL_REFERENCES of them), as small JPEGs. */
  imagesWithoutFace: { assetId: string; jpeg: Buffer }[];
  model: string;
}

export interface ReferenceFaceDeps {
  store: ReferenceFaceStore;
  blobs: BlobStore | undefined;
  /** The face model, loaded on first use; undefined when none is configured here. */
  faceEmbedder: () => Promise<FaceEmbedder | undefined>;
  /** The face model's name, stored with each embedding. */
  model: string;
  clock: Clock;
  logger: Logger;
}

export function createReferenceFaces(deps: ReferenceFaceDeps) {
  const readImage = async (blobKey: string): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of await deps.blobs!.get(blobKey)) {
      size += (chunk as Buffer).length;
      if (size > MAX_REFERENCE_IMAGE_BYTES) throw new Error('the image is larger than a reference image may be');
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  };

  /** Embeds one asset's image and keeps its face (or that it has none). */
  const embedAsset = async (orgId: string, embedder: FaceEmbedder, asset: ReferenceAssetFile): Promise<StoredReferenceFace> => {
    let faces: EmbeddedFace[] = [];
    if (asset.blobKey && (asset.size ?? 0) <= MAX_REFERENCE_IMAGE_BYTES) {
      try {
        faces = await embedder.embedFaces(await readImage(asset.blobKey));
      } catch (error) {
        // An image the decoder refuses holds no face we can use; it is kept as such (not retried forever).
        deps.logger.warn({ err: error, assetId: asset.assetId }, 'a reference image could not be read for faces');
      }
    }
    const face = referenceFace(faces);
    const stored = { assetId: asset.assetId, embedding: face?.embedding ?? null, faces: faces.length, model: deps.model };
    await deps.store.save(orgId, stored, deps.clock.now());
    return stored;
  };

  /** A faceless image as a small JPEG, or undefined when it cannot be read (logged). */
  const visualReference = async (asset: ReferenceAssetFile): Promise<{ assetId: string; jpeg: Buffer } | undefined> => {
    if (!asset.blobKey || !deps.blobs || (asset.size ?? 0) > MAX_REFERENCE_IMAGE_BYTES) return undefined;
    try {
      const side = VISUAL_REFERENCE_SIDE;
      const image = await readImage(asset.blobKey);
      const jpeg = await sharp(image)
        .rotate()
        .resize(side, side, { fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality: 85 })
        .toBuffer();
      return { assetId: asset.assetId, jpeg };
    } catch (error) {
      deps.logger.warn({ err: error, assetId: asset.assetId }, 'a reference image without a face could not be read');
      return undefined;
    }
  };

  async function facesOf(orgId: string, entityId: string, options: { withImages?: boolean } = {}): Promise<EntityReferenceFaces> {
    const assets = isId(entityId) ? await deps.store.entityAssets(orgId, entityId) : undefined;
    if (!assets) throw errors.notFound('Entity', entityId);
    const known = await deps.store.faces(
      orgId,
      assets.map((a) => a.assetId),
      deps.model,
    );
    // An asset still being processed has no file yet: it is embedded by a search after it is ready, never taken for faceless.
    const missing = assets.filter((a) => a.ready && !known.has(a.assetId));
    if (missing.length > 0) {
      const embedder = deps.blobs ? await deps.faceEmbedder() : undefined;
      if (!embedder) {
        throw new ApiError(
          'model_unavailable',
          'No face recognition model is loaded in task-service: reference images cannot be embedded.',
        );
      }
      // One image at a time (the model runs one at a time anyway): at most ENTITY_LIMITS.assets of them.
      for (const asset of missing) known.set(asset.assetId, await embedAsset(orgId, embedder, asset));
    }
    const stored = assets.flatMap((a) => known.get(a.assetId) ?? []);
    const faceless = new Set(stored.filter((s) => !s.embedding).map((s) => s.assetId));
    const imagesWithoutFace: EntityReferenceFaces['imagesWithoutFace'] = [];
    for (const asset of options.withImages ? assets.filter((a) => faceless.has(a.assetId)) : []) {
      if (imagesWithoutFace.length >= MAX_VISUAL_REFERENCES) break;
      const image = await visualReference(asset);
      if (image) imagesWithoutFace.push(image);
    }
    return {
      imagesWithoutFace,
      entityId,
      assetsNotReady: assets.filter((a) => !known.has(a.assetId)).map((a) => a.assetId),
      faces: stored.flatMap((s) => (s.embedding ? [{ assetId: s.assetId, embedding: s.embedding }] : [])),
      assetsWithoutFace: stored.filter((s) => !s.embedding).map((s) => s.assetId),
      model: deps.model,
    };
  }

  return {
    facesOf,
    /** Starts embedding an entity's new reference images (created, or assets added), not awaited; a search completes it. */
    warm(orgId: string, entityId: string): void {
      facesOf(orgId, entityId).catch((error: unknown) =>
        deps.logger.warn({ err: error, entityId }, 'embedding an entity’s reference faces failed; the next search retries'),
      );
    },
  };
}

export type ReferenceFaces = ReturnType<typeof createReferenceFaces>;
