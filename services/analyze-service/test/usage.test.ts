/* What one generation is metered for: its output tokens and the minutes of the video it read. */
import { generationUsage, type GenerationRecord } from '../src/analyze';

const at = new Date('2026-01-10T12:00:00Z');
const generation = (status: GenerationRecord['status'], outputTokens: number): GenerationRecord => ({
  id: 'g1',
  orgId: 'o1',
  videoId: 'v1',
  indexId: 'i1',
  kind: 'analyze',
  provider: 'extractive',
  prompt: '',
  output: '',
  outputTokens,
  finishReason: '',
  status,
  createdAt: at,
});

describe('generationUsage', () => {
  it.each([
    [
      'a completed generation: tokens and minutes',
      'completed',
      120,
      30,
      ['output_tokens:120:generation:g1', 'media_seconds:30:generation:g1/video'],
    ],
    [
      'a cancelled one: what it produced, and the minutes',
      'cancelled',
      5,
      30,
      ['output_tokens:5:generation:g1', 'media_seconds:30:generation:g1/video'],
    ],
    ['one that failed before producing anything: nothing', 'failed', 0, 30, []],
    [
      'one that failed midway: what it produced, and the minutes',
      'failed',
      7,
      30,
      ['output_tokens:7:generation:g1', 'media_seconds:30:generation:g1/video'],
    ],
    ['a video without duration: the tokens only', 'completed', 120, 0, ['output_tokens:120:generation:g1']],
  ] as const)('%s', (_name, status, tokens, seconds, expected) => {
    const usage = generationUsage(generation(status, tokens), seconds);
    expect(usage.map((u) => `${u.kind}:${u.quantity}:${u.idempotencyKey}`)).toEqual(expected);
    expect(usage.every((u) => u.category === 'analyze' && u.occurredAt === at)).toBe(true);
  });
});
