import type { ProviderStatus } from '../types';

/**
 * What to say about speech at start (after "Speech: "): which recogniser will transcribe videos
 * without subtitles, or that none can and why (each provider's reason). Pure.
 */
export function describeSpeechProviders(status: readonly ProviderStatus[]): { active: string | undefined; message: string } {
  const speech = status.filter((s) => s.capability === 'speech_recognizer');
  const active = speech.find((s) => s.state !== 'unavailable');
  if (active) return { active: active.provider, message: `${active.provider} (${active.model}, ${active.kind})` };
  const reasons = speech.map((s) => `${s.provider}: ${s.reason ?? 'not configured'}`).join('; ');
  return {
    active: undefined,
    message: `none installed: videos without subtitles or a transcription file are indexed without speech${reasons ? ` (${reasons})` : ''}`,
  };
}
