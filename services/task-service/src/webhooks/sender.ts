import { isApiError } from '@vus/core';
import { HttpTimeout, send, SsrfRefused, TooManyRedirects, type AddressGuard, type OutboundResponse } from '@vus/fetch';
import { parseWebhookUrl } from './webhook-url';

export interface SendResult {
  /** HTTP status of the final response; 0 when none came. */
  status: number;
  /** Set when the attempt failed before or instead of a 2xx answer. */
  error?: string;
  /** The destination is refused (SSRF guard): retrying cannot help. */
  refused?: boolean;
}

const MAX_REDIRECTS = 3;
/** Receivers' answers are not kept: a bounded part is read so the exchange ends cleanly. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs a signed body through the one outbound client (@vus/fetch `send`), following at most
 * three redirects, each hop checked by the guard (scheme and credentials, literal addresses,
 * resolved addresses at connect time). `timeoutMs` bounds the whole attempt, redirects included.
 * Never throws: the outcome of the attempt is the result.
 */
export async function postWebhook(
  guard: AddressGuard,
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  try {
    const response = await send({
      url: parseWebhookUrl(rawUrl),
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
      guard,
      deadlines: { connectMs: timeoutMs, idleMs: timeoutMs, overallMs: timeoutMs },
      redirects: { max: MAX_REDIRECTS, check: (url) => parseWebhookUrl(url.toString()) },
    });
    await skimAnswer(response);
    const { status } = response;
    return status >= 200 && status < 300 ? { status } : { status, error: `the receiver answered ${status}` };
  } catch (error) {
    if (error instanceof SsrfRefused) return { status: 0, error: error.message, refused: true };
    // A redirect to a URL that is not http(s), or carries credentials.
    if (isApiError(error)) return { status: 0, error: `refused: ${error.message}`, refused: true };
    if (error instanceof TooManyRedirects) return { status: error.status, error: error.message };
    if (error instanceof HttpTimeout) return { status: 0, error: `no answer within ${timeoutMs} ms` };
    return { status: 0, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Reads (and drops) at most MAX_ANSWER_BYTES of the receiver's answer, then lets it go. */
async function skimAnswer(response: OutboundResponse): Promise<void> {
  let seen = 0;
  try {
    for await (const chunk of response.body) {
      seen += (chunk as Buffer).length;
      if (seen > MAX_ANSWER_BYTES) break;
    }
  } catch (error) {
    throw response.explain(error);
  } finally {
    response.body.destroy();
  }
}
