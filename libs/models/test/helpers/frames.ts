import sharp from 'sharp';

export interface TextPlacement {
  readonly text: string;
  readonly x: number;
  /** Baseline. */
  readonly y: number;
  readonly size: number;
}

export interface FrameColours {
  readonly background: string;
  readonly colour: string;
}

/** A JPEG frame with the texts rendered in DejaVu Sans (dark on light unless told otherwise). */
export async function renderTextFrame(
  width: number,
  height: number,
  texts: readonly TextPlacement[],
  colours: FrameColours = { background: '#f4f1ea', colour: '#111111' },
): Promise<Buffer> {
  const body = texts
    .map((t) => `<text x="${t.x}" y="${t.y}" font-family="DejaVu Sans" font-size="${t.size}" fill="${colours.colour}">${t.text}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${colours.background}"/>${body}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}
