import { WEBHOOK_EVENT_TYPES } from '@vault/contracts';
import type { WebhooksObject } from '@vault/platform/openapi';

const header = (name: string, description: string) => ({
  name,
  in: 'header' as const,
  required: true,
  description,
  schema: { type: 'string' },
});

/**
 * What the records module POSTs to a webhook subscription's URL (docs/webhooks.md): one
 * CloudEvent per change, signed as Standard Webhooks specify. The OpenAPI 3.1 `webhooks`
 * of the records and merged documents.
 */
export const RECORDS_WEBHOOKS: WebhooksObject = {
  vaultEvent: {
    post: {
      operationId: 'vaultEvent',
      summary: 'A change in a vault, posted to each subscription whose events include its type.',
      description:
        'Sent again with the same webhook-id and body until the receiver answers 2xx, for about a day; ' +
        '410 Gone disables the subscription. Verify the signature on the raw body (standardwebhooks).',
      tags: ['webhooks'],
      security: [],
      parameters: [
        header('webhook-id', 'The event id (= the CloudEvent id): the same on every retry; deduplicate by it.'),
        header('webhook-timestamp', 'Seconds since the epoch, of this attempt.'),
        header(
          'webhook-signature',
          '`v1,` + base64 HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` with the secret; two, space-separated, while a rotation overlaps.',
        ),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              description: 'A CloudEvents 1.0 structured JSON event.',
              required: ['specversion', 'id', 'source', 'type', 'time', 'datacontenttype', 'vaultid', 'data'],
              properties: {
                specversion: { type: 'string', enum: ['1.0'] },
                id: { type: 'string' },
                source: { type: 'string', description: 'The vault’s path, `/vault/vault-id/<id>`.' },
                type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
                time: { type: 'string', format: 'date-time', description: 'When the change happened.' },
                datacontenttype: { type: 'string', enum: ['application/json'] },
                vaultid: { type: 'string' },
                data: { type: 'object', additionalProperties: true, description: 'The changed resource (docs/webhooks.md).' },
              },
            },
          },
        },
      },
      responses: {
        '200': { description: 'Any 2xx acknowledges the event (200, 202, 204...).' },
        '410': { description: 'Gone: the subscription is disabled at once.' },
        default: { description: 'Anything else, or no answer in time: sent again later.' },
      },
    },
  },
};
