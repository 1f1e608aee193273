/**
 * Deciding cheaply whether a frame shows something new, so the slow analysers (OCR, detectors:
 * about 0.5 s a frame) run only on frames that changed. Works on the small grayscale signatures
 * that sampleFrames attaches to every frame.
 */

export interface FrameDifference {
  /** Mean absolute difference of the two signatures, 0 (same) … 255. */
  meanAbsDiff: number;
  /** Share of signature pixels that differ by more than the pixel threshold, 0 … 1. */
  changedFraction: number;
}

export interface FrameChangeOptions {
  /** A signature pixel counts as changed when it differs by more than this (0–255). Default 12: above encoder noise. */
  pixelThreshold?: number;
  /**
   * A frame counts as changed when at least this share of its pixels changed. Default 0.01: about
   * ten cells of a 32x32 grid, so a new word on an otherwise still slide is caught.
   */
  minChangedFraction?: number;
  /**
   * …and when the mean absolute difference of the two signatures (0–255) is at least this. Default 0
   * (off). A higher value asks for a different picture rather than any change: real footage moves a
   * little every frame (camera, faces, encoder noise), which passes the share test every time.
   */
  minMeanDifference?: number;
}

const DEFAULTS: Required<FrameChangeOptions> = { pixelThreshold: 12, minChangedFraction: 0.01, minMeanDifference: 0 };

/** Compares two signatures of equal length. Pure. */
export function frameDifference(a: Uint8Array, b: Uint8Array, pixelThreshold = DEFAULTS.pixelThreshold): FrameDifference {
  if (a.length !== b.length || a.length === 0) throw new RangeError('signatures must be non-empty and of equal length');
  let sum = 0;
  let changed = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    sum += d;
    if (d > pixelThreshold) changed++;
  }
  return { meanAbsDiff: sum / a.length, changedFraction: changed / a.length };
}

/**
 * Remembers the last frame it let through and says whether the next one differs from it. It compares
 * against the last frame *let through*, not the previous one, so a slow pan that changes a little
 * every second still counts as a change once it adds up.
 */
export class FrameChangeDetector {
  private readonly options: Required<FrameChangeOptions>;
  private reference: Uint8Array | undefined;

  constructor(options: FrameChangeOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** True for the first frame and for every frame that differs enough from the last one that was true. */
  hasChanged(signature: Uint8Array): boolean {
    if (this.reference && this.reference.length === signature.length) {
      const diff = frameDifference(this.reference, signature, this.options.pixelThreshold);
      if (diff.changedFraction < this.options.minChangedFraction) return false;
      if (diff.meanAbsDiff < this.options.minMeanDifference) return false;
    }
    this.reference = signature;
    return true;
  }

  /** Forget the reference (the next frame counts as changed). */
  reset(): void {
    this.reference = undefined;
  }
}
