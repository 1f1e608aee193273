import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * The security headers of the gateway's HTML pages (the playground at `/`, the API reference at
 * `/docs`), both of which hold an API key in the browser. Set by hand rather than with helmet: two
 * pages with different policies (one has an inline script, by hash) and a handful of headers;
 * helmet's defaults for the rest of the server (Cross-Origin-Resource-Policy: same-origin on every
 * answer, say) would break clients that show thumbnails or streams on their own pages.
 */

/** A Content-Security-Policy as directive → sources, in the order they are written. */
export type CspDirectives = Readonly<Record<string, readonly string[]>>;

/** What every page's policy starts from: only this server, no plugins, no <base>, never framed. */
export const PAGE_CSP_BASE: CspDirectives = {
  'default-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** The header value of a policy. Pure. */
export function contentSecurityPolicy(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

/** The CSP source that allows exactly this inline script or style element's text. Pure. */
export function inlineHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** A page's headers: its policy, not framed (X-Frame-Options for browsers before frame-ancestors), not sniffed, no Referer out. */
export function pageSecurityHeaders(directives: CspDirectives): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(directives),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * Every answer is taken for the type it says: a stored file (a thumbnail, a segment, a chunk) is
 * never run as a script or a style sheet because its bytes look like one.
 */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.set('X-Content-Type-Options', 'nosniff');
  next();
};
