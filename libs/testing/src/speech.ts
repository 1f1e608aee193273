import { extractAudio, runFfmpeg } from '@vus/media';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cachedFixture } from './cache';

/**
 * Real speech for tests and the speech benchmark: media from registry packages (installed by
 * npm install as devDependencies), with key words and when they are said, labelled once in
 * `fixtures/speech-labels.json`. Nothing is generated: the point is speech a person recorded.
 */

export interface SpeechLabel {
  /** One or more words as said, lower case. */
  readonly words: string;
  /** When the first word starts, seconds from the start of the media. */
  readonly time: number;
}

export interface SpeechFixture {
  readonly name: string;
  /** The npm package the file comes from, and its path inside it. */
  readonly package: string;
  readonly file: string;
  readonly durationSec: number;
  readonly language: string;
  readonly labels: readonly SpeechLabel[];
  /** The file on this machine. */
  readonly path: string;
}

interface LabelsFile {
  fixtures: Omit<SpeechFixture, 'path'>[];
}

/** How far (s) a recognised word may be from its label. */
export const SPEECH_LABEL_TOLERANCE_SEC = 1.5;

/** The labelled real-speech fixtures. Throws when a package that holds one is not installed. */
export function speechFixtures(): SpeechFixture[] {
  const labels = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'speech-labels.json'), 'utf8')) as LabelsFile;
  return labels.fixtures.map((fixture) => ({
    ...fixture,
    path: join(dirname(require.resolve(`${fixture.package}/package.json`)), fixture.file),
  }));
}

/** The fixture of that name (`twelvelabs-example`: the official SDK's 160 s news clip). */
export function speechFixture(name: string): SpeechFixture {
  const fixture = speechFixtures().find((f) => f.name === name);
  if (!fixture) throw new Error(`no speech fixture named ${name}`);
  return fixture;
}

/** The fixture's audio as the recognisers read it (16 kHz mono WAV), extracted once and cached. */
export function speechFixtureWav(fixture: SpeechFixture): Promise<string> {
  return cachedFixture(`speech-${fixture.name}`, 'wav', { file: fixture.file, package: fixture.package }, async (out) => {
    await extractAudio(fixture.path, out);
  });
}

/**
 * The first `durationSec` of the fixture's media, re-encoded (libx264 ultrafast, AAC) so that it
 * starts on a key frame and ends where asked; cached. For end-to-end tests that index all of a
 * video's modalities, where the whole 160 s would cost minutes of frame analysis.
 */
export function speechFixtureExcerpt(fixture: SpeechFixture, durationSec: number): Promise<string> {
  return cachedFixture(
    `speech-${fixture.name}-${durationSec}s`,
    'mp4',
    { file: fixture.file, package: fixture.package, durationSec },
    (out) =>
      runFfmpeg([
        '-i',
        fixture.path,
        '-t',
        String(durationSec),
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-c:a',
        'aac',
        '-f',
        'mp4',
        out,
      ]),
  );
}

/**
 * The labels that some line of a transcription holds, within the tolerance of its time: the
 * line's words include the label's words in order, and the label's time falls inside the line
 * widened by the tolerance. Pure.
 */
export function labelsFound(
  lines: readonly { start: number; end: number; text: string }[],
  labels: readonly SpeechLabel[],
  tolerance = SPEECH_LABEL_TOLERANCE_SEC,
): SpeechLabel[] {
  return labels.filter((label) =>
    lines.some((line) => {
      const text = ` ${line.text
        .toLowerCase()
        .replace(/[^a-z0-9' ]+/g, ' ')
        .replace(/\s+/g, ' ')} `;
      return text.includes(` ${label.words} `) && line.start - tolerance <= label.time && label.time <= line.end + tolerance;
    }),
  );
}
