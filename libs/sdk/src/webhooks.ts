import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { CloudEvent } from './transfer/feed.js';

export { WebhookVerificationError };

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, within 5 minutes) on the raw body, and answers its CloudEvent.
 * `secrets` holds the subscription's `whsec_…` secret, or both during a rotation's 24 hours.
 * Throws {@link WebhookVerificationError} when no secret verifies it.
 */
export function verifyWebhook(
  secrets: string | string[],
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined> | Headers,
): CloudEvent {
  const flat = flattenHeaders(headers);
  const payload = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  let last: unknown;
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    try {
      return new Webhook(secret).verify(payload, flat) as CloudEvent;
    } catch (e) {
      last = e;
    }
  }
  throw last ?? new WebhookVerificationError('no secret given');
}

function flattenHeaders(headers: Record<string, string | string[] | undefined> | Headers): Record<string, string> {
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
