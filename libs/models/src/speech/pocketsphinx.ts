import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { memorySamples, openWavSamples, SPEECH_SAMPLE_RATE, type SampleSource } from '../audio';
import type { PocketSphinxConfig } from '../config';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { SpeechRecognizer, SpeechSegment, TranscribeOptions } from '../types';
import { detectSpeechRegionsIn, type SpeechRegion } from './vad';
import { wordsToLines, type TimedWord } from './words';

/**
 * The bundled speech recogniser: CMU PocketSphinx (Debian `pocketsphinx`, 0.8+5prealpha in
 * bookworm) with its US English model (`pocketsphinx-en-us`), run as `pocketsphinx_continuous`
 * child processes on raw 16 kHz PCM files (it opens its input by name, so Node's stdin socket
 * will not do). Only the stretches the energy VAD marks as speech are read, a region at a time
 * from the track's file (memory does not grow with the video's length);
 * they are shared out over `processes` recognisers that run at once (one core each), and the
 * words' times are mapped back onto the audio's timeline, then grouped into lines.
 */

/** The packages to install, named in every message about their absence. */
export const POCKETSPHINX_PACKAGES = 'pocketsphinx pocketsphinx-en-us';

/** What `pocketsphinx-en-us` installs under its folder. */
const MODEL_FILES = { acoustic: 'en-us', languageModel: 'en-us.lm.bin', dictionary: 'cmudict-en-us.dict' } as const;
const ACOUSTIC_FILES = ['mdef', 'means', 'variances', 'transition_matrices', 'sendump', 'feat.params'];

/**
 * Narrower search than the defaults: on 160 s of news speech this halves the CPU time (25 s instead
 * of 51 s on one core) and keeps the same content words ("toxic", "train crash", "vinyl chloride",
 * "carcinogen", "lawsuits"). The second (flat-lexicon) pass costs half the time for little gain.
 * The search, not the acoustic scoring, is the cost (frame downsampling `-ds 2` and `-topn 2` saved
 * nothing on the SDK's example, 2026-11-28). Capping the active HMMs per frame lower does save CPU
 * (3000: 50.5–53.9 CPU-s instead of 57.2 on two processes, 6 of 6 key words) but the example's
 * search recall@1 fell from 0.88 to 0.75 (scripts/bench/search-quality.js), so 5000 stays.
 */
const SEARCH_ARGUMENTS = ['-maxhmmpf', '5000', '-maxwpf', '20', '-pl_window', '5', '-fwdflat', 'no'];

/** Silence written between two regions in one recogniser's stream, so each ends an utterance. */
const GAP_SEC = 0.5;

export function pocketSphinxProvider(config: PocketSphinxConfig | undefined): ProviderDefinition<'speech_recognizer'> {
  return {
    capability: 'speech_recognizer',
    name: 'pocketsphinx',
    model: 'pocketsphinx-en-us',
    kind: 'bundled',
    check: async () => (config ? missingPocketSphinx(config) : 'turned off (MODELS_POCKETSPHINX=off)'),
    load: async () => {
      if (!config) throw new Error('pocketsphinx is turned off');
      return new PocketSphinxRecognizer({ ...config, binary: findExecutable(config.binary) ?? config.binary });
    },
  };
}

/**
 * Why PocketSphinx cannot run here (no paths: this reaches API users), or undefined. A few stat
 * calls, so tests can decide synchronously whether to run their real-speech suites.
 */
export function missingPocketSphinx(config: PocketSphinxConfig): string | undefined {
  if (!findExecutable(config.binary)) {
    return `the speech recogniser is not installed: ${basename(config.binary)} was not found (install the Debian packages ${POCKETSPHINX_PACKAGES})`;
  }
  const files = [
    ...ACOUSTIC_FILES.map((f) => join(config.modelDir, MODEL_FILES.acoustic, f)),
    join(config.modelDir, MODEL_FILES.languageModel),
    join(config.modelDir, MODEL_FILES.dictionary),
  ];
  for (const file of files) {
    if (!isFile(file))
      return `the speech model is not installed (install the Debian package pocketsphinx-en-us, or set MODELS_POCKETSPHINX_MODEL)`;
  }
  return undefined;
}

export class PocketSphinxRecognizer implements SpeechRecognizer {
  /** The US English model is the one installed: other languages are not recognised. */
  readonly languages: readonly string[] = ['en'];
  private readonly queue = new SerialQueue();

  constructor(private readonly config: PocketSphinxConfig) {}

  transcribe(audio: Float32Array | string, options: TranscribeOptions = {}): Promise<SpeechSegment[]> {
    // One track at a time: each track already takes `processes` cores.
    return this.queue.run(async () => {
      const source = typeof audio === 'string' ? await openWavSamples(audio) : memorySamples(audio);
      try {
        const regions = await detectSpeechRegionsIn(source);
        const groups = shareOut(regions, this.config.processes);
        const words = await Promise.all(groups.map((group) => this.recognise(source, group, options.signal)));
        return wordsToLines(words.flat()).map((line) => ({ ...line, language: 'en' }));
      } finally {
        await source.close();
      }
    });
  }

  /** Runs one recogniser over the regions of one group, as one stream with silence between them. */
  private async recognise(source: SampleSource, regions: readonly SpeechRegion[], signal: AbortSignal | undefined): Promise<TimedWord[]> {
    const layout = streamLayout(regions, GAP_SEC);
    const { modelDir } = this.config;
    const dir = await mkdtemp(join(tmpdir(), 'vus-speech-'));
    const input = join(dir, 'speech.raw');
    let output: string;
    try {
      const streamSec = await writePcm16Stream(source, layout, input);
      output = await runRecogniser(
        this.config.binary,
        [
          '-infile',
          input,
          '-samprate',
          String(SPEECH_SAMPLE_RATE),
          '-time',
          'yes',
          '-logfn',
          '/dev/null',
          '-hmm',
          join(modelDir, MODEL_FILES.acoustic),
          '-lm',
          join(modelDir, MODEL_FILES.languageModel),
          '-dict',
          join(modelDir, MODEL_FILES.dictionary),
          ...SEARCH_ARGUMENTS,
        ],
        // Generous: the machine may be shared. A stuck recogniser must not hold the task for ever.
        { timeoutMs: 60_000 + streamSec * 10_000, signal },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return parsePocketSphinxWords(output).map((w) => ({
      word: w.word,
      start: round2(toSourceTime(layout, w.start)),
      end: round2(toSourceTime(layout, w.end)),
    }));
  }
}

/** A word line of `-time yes` output: `word start end confidence`. */
const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/;

/**
 * The words of `pocketsphinx_continuous -time yes` output. Each utterance prints its hypothesis,
 * then one line per word; fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++…++`) are dropped and
 * alternative pronunciations (`the(2)`) named by their word. Pure.
 */
export function parsePocketSphinxWords(output: string): (TimedWord & { confidence: number })[] {
  const words: (TimedWord & { confidence: number })[] = [];
  for (const line of output.split('\n')) {
    const match = WORD_LINE.exec(line.trim());
    if (!match) continue;
    const [, token = '', start = '0', end = '0', confidence = '0'] = match;
    if (/^[<[]|^\+\+/.test(token)) continue;
    words.push({ word: token.replace(/\(\d+\)$/, ''), start: Number(start), end: Number(end), confidence: Number(confidence) });
  }
  return words;
}

/** Where a region sits in a recogniser's stream (s). */
export interface StreamPiece {
  readonly source: SpeechRegion;
  readonly streamStart: number;
}

/** The regions one after another, `gapSec` of silence between them. Pure. */
export function streamLayout(regions: readonly SpeechRegion[], gapSec: number): StreamPiece[] {
  let at = 0;
  return regions.map((source) => {
    const piece = { source, streamStart: at };
    at += source.end - source.start + gapSec;
    return piece;
  });
}

/** A time in the stream → the same moment in the audio (inside the piece it falls in). Pure. */
export function toSourceTime(layout: readonly StreamPiece[], streamSec: number): number {
  let piece = layout[0];
  for (const p of layout) {
    if (p.streamStart <= streamSec) piece = p;
    else break;
  }
  if (!piece) return streamSec;
  return Math.min(piece.source.end, piece.source.start + Math.max(0, streamSec - piece.streamStart));
}

/**
 * Regions in at most `count` groups of neighbours with about the same length of speech each, so
 * the recognisers that run at once finish at about the same time. Pure.
 */
export function shareOut(regions: readonly SpeechRegion[], count: number): SpeechRegion[][] {
  const total = regions.reduce((sum, r) => sum + (r.end - r.start), 0);
  const groups: SpeechRegion[][] = [];
  let current: SpeechRegion[] = [];
  let done = 0;
  for (const region of regions) {
    current.push(region);
    done += region.end - region.start;
    if (groups.length < count - 1 && done >= (total * (groups.length + 1)) / count) {
      groups.push(current);
      current = [];
    }
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Writes the layout's audio to `path` as 16-bit little-endian PCM, with silence in the gaps, a
 * region at a time; the stream's length in seconds.
 */
async function writePcm16Stream(source: SampleSource, layout: readonly StreamPiece[], path: string): Promise<number> {
  const last = layout[layout.length - 1];
  const totalSamples = last ? Math.round((last.streamStart + last.source.end - last.source.start + GAP_SEC) * SPEECH_SAMPLE_RATE) : 0;
  const file = await open(path, 'w');
  try {
    // Zeros, i.e. silence, wherever no region is written.
    await file.truncate(totalSamples * 2);
    for (const { source: region, streamStart } of layout) {
      const from = Math.round(region.start * SPEECH_SAMPLE_RATE);
      const to = Math.min(source.length, Math.round(region.end * SPEECH_SAMPLE_RATE));
      const at = Math.round(streamStart * SPEECH_SAMPLE_RATE);
      const samples = await source.read(from, Math.max(0, Math.min(to - from, totalSamples - at)));
      const pcm = Buffer.alloc(samples.length * 2);
      samples.forEach((sample, i) => pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, sample)) * 32767), i * 2));
      await file.write(pcm, 0, pcm.length, at * 2);
    }
  } finally {
    await file.close();
  }
  return totalSamples / SPEECH_SAMPLE_RATE;
}

const STDERR_TAIL = 2048;

/** Runs the recogniser; its stdout, or an error with its stderr's tail. */
function runRecogniser(
  binary: string,
  args: readonly string[],
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<string> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new Error('speech recognition was cancelled'));
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    let killedFor: string | undefined;
    const kill = (why: string) => {
      killedFor ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`took longer than ${Math.round(options.timeoutMs / 1000)} s`), options.timeoutMs);
    const onAbort = () => kill('was cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL);
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${basename(binary)} could not be started: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (killedFor) return reject(new Error(`speech recognition ${killedFor}`));
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      reject(
        new Error(
          `${basename(binary)} failed (${code === null ? `signal ${signal}` : `exit code ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' ')}`,
        ),
      );
    });
  });
}

/** A program by path, or by name on PATH; undefined when it is not there or cannot be run. */
function findExecutable(binary: string): string | undefined {
  const candidates = binary.includes('/')
    ? [binary]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, binary));
  return candidates.find((candidate) => isFile(candidate) && isExecutable(candidate));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function basename(path: string): string {
  return path.split('/').pop() || path;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
