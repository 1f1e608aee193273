/**
 * Broken and hostile media for the fuzz suite, made in a few bytes each (no ffmpeg): what an
 * upload, a query image or a URL may carry instead of a video or a picture.
 */
import { deflateSync } from 'node:zlib';

export type HostileMedia = Record<string, Buffer>;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG that says it is width×height (8-bit RGB) with `pixels` as its (possibly too short) image data. */
function png(width: number, height: number, pixels: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(pixels)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An MP4 box: size, type, payload; `size` may lie. */
function box(type: string, payload: Buffer, size = payload.length + 8): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(size);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}

export function hostileMedia(): HostileMedia {
  const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));
  return {
    'empty.mp4': Buffer.alloc(0),
    // A container that promises a 1 GB movie box and ends after its header.
    'truncated.mp4': Buffer.concat([ftyp, box('moov', Buffer.from('mvhd'), 1_000_000_000)]),
    'playlist.mp4': Buffer.from(
      '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile:///etc/passwd\n#EXTINF:10,\nhttp://169.254.169.254/latest\n#EXT-X-ENDLIST\n',
    ),
    'playlist.m3u8': Buffer.from('#EXTM3U\n#EXTINF:1,\n../../../../etc/hostname\n'),
    'concat.mp4': Buffer.from("ffconcat version 1.0\nfile '/etc/passwd'\n"),
    'dash.mpd': Buffer.from('<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><BaseURL>file:///etc/</BaseURL></MPD>'),
    'random.mp4': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24)),
    // Images that claim more pixels than any decoder should allocate.
    'huge.png': png(65_535, 65_535, Buffer.alloc(64)),
    'huge.jpg': Buffer.from([
      0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xff, 0xdc, 0xff, 0xdc, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff,
      0xd9,
    ]),
    'tiny.png': png(1, 1, Buffer.from([0, 255, 0, 0])),
    'small.png': png(64, 64, Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(64 * 3, 128)])))),
    'subtitles.srt': Buffer.from('1\n99999999:99:99,999 --> -1:00:00,000\n<script>x</script>\n\n'),
  };
}
