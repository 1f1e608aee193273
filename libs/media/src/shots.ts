import { defaultTimeoutMs } from './frames';
import { classifyInputFailure, inputArguments } from './input';
import { probe as probeFile, type MediaProbe } from './probe';
import { startTool, type MediaRunOptions } from './run';

export interface ShotBoundary {
  /** Where the new shot starts, seconds. */
  timeSec: number;
  /** ffmpeg's scene-change score of that frame, 0 … 1. */
  score: number;
}

export interface Shot {
  startSec: number;
  endSec: number;
}

export interface DetectShotsOptions extends MediaRunOptions {
  /** Scene score above which a frame starts a new shot. Default 0.3 (ffmpeg's usual cut threshold). */
  threshold?: number;
  /** Ignore a cut closer than this to the previous one (flashes, fades). Default 0.5 s. */
  minShotSec?: number;
  probe?: MediaProbe;
}

export interface ShotDetection {
  boundaries: ShotBoundary[];
  /** The whole video cut at the boundaries: consecutive, covering 0 … duration. */
  shots: Shot[];
}

/**
 * Finds hard cuts with ffmpeg's scene score (`select=gt(scene,T)`), computed on a downscaled copy
 * of every frame: decoding is the cost, the score itself is cheap at 160 px wide. The score is taken
 * on RGB, not YUV: on YUV it weighs brightness only, and a cut between two equally bright shots of
 * different colour (green to red) scores about 0.2 instead of 0.86.
 */
export async function detectShots(file: string, options: DetectShotsOptions = {}): Promise<ShotDetection> {
  const probed = options.probe ?? (await probeFile(file, options));
  const threshold = options.threshold ?? 0.3;
  const lines: string[] = [];
  const running = startTool(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-nostats',
      '-loglevel',
      'info',
      ...inputArguments(file, probed.demuxer),
      '-an',
      '-sn',
      '-dn',
      '-vf',
      `scale=160:-2,format=rgb24,select='gt(scene,${threshold})',metadata=mode=print`,
      '-f',
      'null',
      '-',
    ],
    {
      timeoutMs: options.timeoutMs ?? defaultTimeoutMs(probed.durationSec),
      signal: options.signal,
      onStderrLine: (line) => {
        if (line.includes('pts_time:') || line.includes('lavfi.scene_score=')) lines.push(line);
      },
    },
    classifyInputFailure,
  );
  await running.finished;
  const boundaries = dropCloseBoundaries(parseSceneScores(lines), options.minShotSec ?? 0.5);
  return { boundaries, shots: shotsFromBoundaries(boundaries, probed.durationSec) };
}

/**
 * Reads the `metadata=mode=print` log: a `frame:… pts_time:T` line followed by
 * `lavfi.scene_score=S`. Pure; exported for tests.
 */
export function parseSceneScores(lines: readonly string[]): ShotBoundary[] {
  const boundaries: ShotBoundary[] = [];
  let time: number | undefined;
  for (const line of lines) {
    const t = /pts_time:\s*([\d.]+)/.exec(line);
    if (t) {
      time = Number(t[1]);
      continue;
    }
    const s = /lavfi\.scene_score=([\d.]+)/.exec(line);
    if (s && time !== undefined) {
      boundaries.push({ timeSec: Math.round(time * 1000) / 1000, score: Number(s[1]) });
      time = undefined;
    }
  }
  return boundaries;
}

function dropCloseBoundaries(boundaries: ShotBoundary[], minShotSec: number): ShotBoundary[] {
  const kept: ShotBoundary[] = [];
  for (const b of boundaries) {
    const last = kept[kept.length - 1]?.timeSec ?? 0;
    if (b.timeSec - last >= minShotSec) kept.push(b);
  }
  return kept;
}

/** Cuts [0, duration] at the boundaries. Pure. */
export function shotsFromBoundaries(boundaries: readonly ShotBoundary[], durationSec: number): Shot[] {
  const cuts = boundaries.map((b) => b.timeSec).filter((t) => t > 0 && t < durationSec);
  const edges = [0, ...cuts, durationSec];
  return edges.slice(1).map((end, i) => ({ startSec: edges[i]!, endSec: end }));
}
