import { errors } from '@vus/core';
import { checkHttpUrl, hostOf, unreachableReason, type AddressGuard } from '@vus/fetch';

/**
 * A webhook makes this server send requests to an address a customer chose. The address rules are
 * @vus/fetch's (checked again at every delivery, at connect time); here is only what registration
 * says about them.
 */

/** Parses a webhook URL: absolute, http or https, no credentials. */
export function parseWebhookUrl(raw: string, param = 'url'): URL {
  const checked = checkHttpUrl(raw);
  if (checked instanceof URL) return checked;
  // Receivers authenticate deliveries by their signature, not by credentials in the URL.
  throw errors.invalid(
    param,
    checked.kind === 'credentials' ? 'Credentials in the URL are not allowed; verify the signature instead.' : checked.message,
  );
}

/**
 * Checks a webhook URL at registration: its shape, and every address its host has now. Throws
 * `parameter_invalid` naming the problem, or returns the parsed URL.
 */
export async function checkWebhookUrl(guard: AddressGuard, raw: string, param = 'url'): Promise<URL> {
  const url = parseWebhookUrl(raw, param);
  const hostname = hostOf(url);
  try {
    await guard.checkHost(hostname);
  } catch (error) {
    // One answer for a name that resolves to a forbidden address and one that does not resolve:
    // never an oracle of the internal DNS.
    const unreachable = unreachableReason(hostname, error) ?? `${hostname} could not be checked`;
    throw errors.invalid(param, `Webhooks cannot be sent to private, loopback, link-local or metadata addresses: ${unreachable}.`);
  }
  return url;
}
