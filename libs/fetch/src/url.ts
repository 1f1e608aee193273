/** Why a URL may not be requested on a user's behalf, before any connection is tried. */
export interface UrlProblem {
  kind: 'not-absolute' | 'scheme' | 'credentials';
  /** A sentence for the caller's error message. */
  message: string;
}

export const FETCHABLE_SCHEMES: readonly string[] = ['http:', 'https:'];

/**
 * The one rule for URLs a user hands us to request (a video, a transcription, a query image, a
 * webhook receiver): absolute, http or https, no credentials. Addresses are checked at connect time.
 */
export function checkHttpUrl(raw: string): URL | UrlProblem {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { kind: 'not-absolute', message: 'It must be an absolute http or https URL.' };
  }
  if (!FETCHABLE_SCHEMES.includes(url.protocol)) {
    return { kind: 'scheme', message: `The scheme ${url.protocol} is not allowed; use http or https.` };
  }
  if (url.username || url.password) return { kind: 'credentials', message: 'Credentials in the URL are not allowed.' };
  return url;
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
