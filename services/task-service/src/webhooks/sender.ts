import { isApiError } from '@vus/core';
import { hostOf, SsrfRefused, type AddressGuard } from '@vus/fetch';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseWebhookUrl } from './webhook-url';

export interface SendResult {
  /** HTTP status of the final response; 0 when none came. */
  status: number;
  /** Set when the attempt failed before or instead of a 2xx answer. */
  error?: string;
  /** The destination is refused (SSRF guard): retrying cannot help. */
  refused?: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

/**
 * POSTs a signed body, following at most three redirects, each hop checked by the guard (scheme,
 * literal addresses here, resolved addresses at connect time in the socket's lookup). Never
 * throws: the outcome of the attempt is the result.
 */
export async function postWebhook(
  guard: AddressGuard,
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  let url = rawUrl;
  try {
    for (let hop = 0; ; hop++) {
      const response = await postOnce(guard, url, body, headers, timeoutMs);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        if (hop === MAX_REDIRECTS) return { status: response.statusCode ?? 0, error: `more than ${MAX_REDIRECTS} redirects` };
        url = new URL(location, url).toString();
        continue;
      }
      const status = response.statusCode ?? 0;
      return status >= 200 && status < 300 ? { status } : { status, error: `the receiver answered ${status}` };
    }
  } catch (error) {
    if (error instanceof SsrfRefused) return { status: 0, error: error.message, refused: true };
    // A redirect to a URL that is not http(s), or carries credentials.
    if (isApiError(error)) return { status: 0, error: `refused: ${error.message}`, refused: true };
    return { status: 0, error: error instanceof Error ? error.message : String(error) };
  }
}

function postOnce(guard: AddressGuard, rawUrl: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<IncomingMessage> {
  const url = parseWebhookUrl(rawUrl);
  const hostname = hostOf(url);
  // Node skips `lookup` for literal addresses: checked here.
  const literal = guard.refuseLiteral(hostname);
  if (literal) return Promise.reject(literal);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString() },
        lookup: guard.lookupFor(hostname),
        // A fresh connection per attempt: a pooled socket would skip the connect-time check.
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        // Read (and drop) a bounded body so the socket closes; receivers' answers are not kept.
        let seen = 0;
        response.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 64 * 1024) response.destroy();
        });
        response.on('end', () => resolve(response));
        response.on('close', () => resolve(response));
        response.on('error', reject);
      },
    );
    req.on('error', (error: Error) => {
      if (error.name === 'AbortError' || error.name === 'TimeoutError') reject(new Error(`no answer within ${timeoutMs} ms`));
      else reject(error);
    });
    req.end(body);
  });
}
