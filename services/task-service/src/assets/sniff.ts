/**
 * What an asset's file is, from its first bytes only (never its name or the Content-Type the
 * client claimed): a still image or an audio file is recognised by its signature; a file that
 * could hold video goes on to ffprobe (libs/media, which reads only real containers); text —
 * above all HLS/DASH playlists, HTML pages and scripts dressed up as media — is refused here.
 */

export type AssetType = 'video' | 'audio' | 'image';

/** Bytes to read from the start of a file for sniffing. */
export const SNIFF_BYTES = 64;

export type Sniffed =
  | { kind: 'image' | 'audio'; mime: string }
  /** May be a video: ffprobe decides (and finds the container). */
  | { kind: 'probe' }
  | { kind: 'refused'; reason: string };

const ascii = (head: Uint8Array, from: number, length: number) => Buffer.from(head.subarray(from, from + length)).toString('latin1');
const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0) => bytes.every((b, i) => head[at + i] === b);

/** Signatures of still images (RIFF WEBP and ISO-BMFF AVIF/HEIC are handled below). */
const IMAGES: readonly [bytes: readonly number[], mime: string][] = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  [[0x47, 0x49, 0x46, 0x38], 'image/gif'],
  [[0x42, 0x4d], 'image/bmp'],
];

/** ISO-BMFF brands of audio-only files (`ftypM4A `) and of still images (`ftypavif`). */
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ']);
const IMAGE_BRANDS: Readonly<Record<string, string>> = { avif: 'image/avif', heic: 'image/heic', heix: 'image/heic', mif1: 'image/heif' };

/** Text a playlist, page or script starts with once leading whitespace and a BOM are gone. */
const TEXT_STARTS = ['#EXTM3U', '<?xml', '<MPD', '<!DOCTYPE', '<html', '<HTML', '<!doctype', 'ffconcat', '#!', '{', '['];

function mostlyText(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  let text = 0;
  for (const byte of head) if (byte === 0x09 || byte === 0x0a || byte === 0x0d || (byte >= 0x20 && byte < 0x7f)) text++;
  return text / head.length > 0.95;
}

/** Classifies a file by its first SNIFF_BYTES bytes. Pure. */
export function sniffMedia(head: Uint8Array): Sniffed {
  if (head.length < 4) return { kind: 'refused', reason: 'The file is empty or too short to be media.' };
  for (const [bytes, mime] of IMAGES) if (startsWith(head, bytes)) return { kind: 'image', mime };
  if (ascii(head, 0, 4) === 'RIFF') {
    const form = ascii(head, 8, 4);
    if (form === 'WEBP') return { kind: 'image', mime: 'image/webp' };
    if (form === 'WAVE') return { kind: 'audio', mime: 'audio/wav' };
    return { kind: 'probe' }; // AVI
  }
  if (ascii(head, 4, 4) === 'ftyp') {
    const brand = ascii(head, 8, 4);
    if (AUDIO_BRANDS.has(brand)) return { kind: 'audio', mime: 'audio/mp4' };
    const image = IMAGE_BRANDS[brand];
    if (image) return { kind: 'image', mime: image };
    return { kind: 'probe' };
  }
  if (ascii(head, 0, 4) === 'fLaC') return { kind: 'audio', mime: 'audio/flac' };
  if (ascii(head, 0, 3) === 'ID3') return { kind: 'audio', mime: 'audio/mpeg' };
  // An MPEG audio frame (11 sync bits; layer bits 00 make it an ADTS AAC frame).
  const second = head[1] ?? 0;
  if (head[0] === 0xff && (second & 0xe0) === 0xe0) {
    return { kind: 'audio', mime: (second & 0x06) === 0 ? 'audio/aac' : 'audio/mpeg' };
  }
  const text = Buffer.from(head)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (TEXT_STARTS.some((start) => text.startsWith(start))) {
    return text.startsWith('#EXTM3U') || text.startsWith('<MPD') || text.startsWith('ffconcat')
      ? {
          kind: 'refused',
          reason: 'The file is a playlist that lists other files instead of holding the media. Upload the media file itself.',
        }
      : { kind: 'refused', reason: 'The file is text, not media. Upload a video, audio or image file.' };
  }
  if (mostlyText(head)) return { kind: 'refused', reason: 'The file is text, not media. Upload a video, audio or image file.' };
  return { kind: 'probe' };
}

/** MIME type of a video by the container ffprobe found. */
export function videoMime(container: string): string {
  if (container === 'webm') return 'video/webm';
  if (container === 'matroska') return 'video/x-matroska';
  if (container === 'mov') return 'video/quicktime';
  if (container === 'avi') return 'video/x-msvideo';
  if (container === 'mpegts') return 'video/mp2t';
  if (container === 'ogg') return 'video/ogg';
  return 'video/mp4';
}
