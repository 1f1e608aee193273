import type { DimensionState } from './counters';
import { DIMENSION_RULES, type DimensionKind } from './policy';

const HEADER_FAMILY: Record<DimensionKind, string> = {
  request: 'Request',
  duration: 'Duration',
  output_token: 'OutputToken',
};

/** Published units per counter unit in the headers: requests, minutes, tokens. */
function headerValues(state: DimensionState): { limit: number; remaining: number } {
  const rule = DIMENSION_RULES[state.dimension];
  if (rule.kind === 'duration') return { limit: state.limit, remaining: Math.floor(state.remainingUnits / rule.unitsPerLimitUnit) };
  if (rule.kind === 'output_token') return { limit: state.limit * rule.unitsPerLimitUnit, remaining: state.remainingUnits };
  return { limit: state.limit, remaining: state.remainingUnits };
}

/** Of a kind's windows (RPM and RPD, say) the headers show the one closest to refusing. */
function binding(states: DimensionState[]): DimensionState {
  return states.reduce((a, b) => {
    const ra = headerValues(a).remaining;
    const rb = headerValues(b).remaining;
    if (rb !== ra) return rb < ra ? b : a;
    return b.resetAt > a.resetAt ? b : a;
  });
}

const unixSeconds = (date: Date): string => String(Math.ceil(date.getTime() / 1000));

/**
 * SPEC §8 "Rate-limit response headers": one family per kind of dimension that applies to the
 * endpoint, resets as Unix seconds, and the legacy aggregate headers mirroring the request family.
 */
export function rateLimitHeaders(states: readonly DimensionState[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const kind of Object.keys(HEADER_FAMILY) as DimensionKind[]) {
    const ofKind = states.filter((s) => DIMENSION_RULES[s.dimension].kind === kind);
    if (ofKind.length === 0) continue;
    const state = binding(ofKind);
    const { limit, remaining } = headerValues(state);
    const family = HEADER_FAMILY[kind];
    headers[`X-RateLimit-${family}-Limit`] = String(limit);
    headers[`X-RateLimit-${family}-Remaining`] = String(remaining);
    headers[`X-RateLimit-${family}-Reset`] = unixSeconds(state.resetAt);
    if (kind === 'request') {
      headers['X-RateLimit-Limit'] = String(limit);
      headers['X-RateLimit-Remaining'] = String(remaining);
      headers['X-RateLimit-Reset'] = unixSeconds(state.resetAt);
    }
  }
  return headers;
}
