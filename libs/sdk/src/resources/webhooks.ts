import type { CallOptions, CreateOptions, RecordsClient, Schemas } from '../api-types.js';
import { keyHeader } from '../api-types.js';
import { listItems } from '../pagination.js';
import { dataOf } from '../unwrap.js';

/** Webhook subscriptions of a vault (its owner's). */
export class WebhooksApi {
  constructor(private readonly api: RecordsClient) {}

  /** Subscribes; the answer holds the signing `secret`, shown only here. */
  async create(vaultId: string, body: Schemas['WebhookDto'], o: CreateOptions = {}): Promise<Schemas['WebhookWithSecretView']> {
    return dataOf(
      this.api.POST('/vault/vault-id/{vaultId}/webhooks', {
        params: { path: { vaultId } },
        body,
        headers: keyHeader(o),
        signal: o.signal,
      }),
    );
  }

  list(vaultId: string, o: CallOptions = {}): AsyncGenerator<Schemas['WebhookView']> {
    return listItems(() =>
      dataOf(this.api.GET('/vault/vault-id/{vaultId}/webhooks', { params: { path: { vaultId } }, signal: o.signal })),
    );
  }

  /** The subscription's delivery log, newest event first, page after page. */
  deliveries(
    vaultId: string,
    webhookId: string,
    o: CallOptions & { pageSize?: number } = {},
  ): AsyncGenerator<Schemas['WebhookDeliveryView']> {
    return listItems((cursor) => {
      const params = { path: { vaultId, webhookId }, query: { pageSize: o.pageSize ?? 100, ...(cursor ? { cursor } : {}) } };
      return dataOf(
        this.api.GET('/vault/vault-id/{vaultId}/webhooks/webhook-id/{webhookId}/deliveries', { params, signal: o.signal }),
      );
    });
  }
}
