import type { BlobStore } from '@vus/blob';
import { transcriptionTooLarge } from '@vus/domain';

/**
 * An uploaded transcription file as text, reading at most `maxBytes` of the blob whatever its
 * size (`payload_too_large` beyond it): a blob larger than the cap is refused from its size
 * without reading it, and the read itself stops one byte past the cap.
 */
export async function readTranscriptionBlob(
  blobs: BlobStore,
  key: string,
  maxBytes: number,
  param = 'transcription_file',
): Promise<string> {
  const info = await blobs.stat(key);
  if (info && info.size > maxBytes) throw transcriptionTooLarge(param, maxBytes);
  const stream = await blobs.get(key, { start: 0, end: maxBytes });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw transcriptionTooLarge(param, maxBytes);
      chunks.push(chunk as Buffer);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}
