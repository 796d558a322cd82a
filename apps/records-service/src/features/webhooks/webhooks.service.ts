import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  pageInfo,
  DEFAULT_PAGE_SIZE,
  Principal,
  UpdateWebhookDto,
  WebhookDeliveriesQuery,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookDto,
  WebhookView,
  WebhookWithSecretView,
} from '@vault/contracts';
import { isUuid, type VaultAccess } from '../../capabilities/access/access.service';
import { WebhookDeliveryEntity } from '../../persistence/webhooks/webhook-delivery.entity';
import { WebhookEntity } from '../../persistence/webhooks/webhook.entity';
import { WebhookDeliveryRepository } from '../../persistence/webhooks/webhook-delivery.repository';
import { WebhookRepository } from '../../persistence/webhooks/webhook.repository';
import { WebhookSecrets } from './secret-box/webhook-secrets';
import { newSecret, ROTATION_OVERLAP_MS } from './signing';
import { TargetGuard, TargetRefusedError } from './target-guard';
import { decodeDeliveryCursor, encodeDeliveryCursor, pageAndCursor } from './delivery-cursor';
import { WebhookDispatcher } from './webhook-dispatcher';
import { deliveryInFlight, deliveryNotFound, targetRefused, webhookNotFound } from './webhooks.errors';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toWebhookView(w: WebhookEntity): WebhookView {
  return {
    id: w.id,
    vaultId: w.vaultId,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    // an enabled subscription has no code, even one resumed by an instance that predates codes
    disabledCode: w.enabled ? null : w.disabledCode,
    disabledReason: w.disabledReason,
    disabledAt: iso(w.disabledAt),
    failingSince: iso(w.failingSince),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

/** The subscription with its new secret in plain text: the one time it is shown. */
const withSecret = (w: WebhookEntity, secret: string): WebhookWithSecretView => ({ ...toWebhookView(w), secret });

export function toDeliveryView(d: WebhookDeliveryEntity): WebhookDeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastResponseExcerpt: d.lastResponseExcerpt,
    nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    deliveredAt: iso(d.deliveredAt),
    createdAt: d.createdAt.toISOString(),
  };
}

/** Webhook subscriptions of a vault, managed by its owner (docs/webhooks.md). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveryRows: WebhookDeliveryRepository,
    private readonly guard: TargetGuard,
    private readonly dispatcher: WebhookDispatcher,
    private readonly secrets: WebhookSecrets,
  ) {}

  async list(access: VaultAccess): Promise<WebhookView[]> {
    return (await this.webhooks.list(access.vault.id)).map(toWebhookView);
  }

  /**
   * A new subscription. Its creation time is stamped here, by the service's clock, as
   * every event's `occurredAt` is (eventBase): the fan-out sends a subscription the
   * events at or after its `createdAt`, so both sides of that comparison come from one
   * clock, at the millisecond precision the API shows (docs/webhooks.md, From its creation on).
   */
  async create(access: VaultAccess, principal: Principal, dto: WebhookDto): Promise<WebhookWithSecretView> {
    const url = await this.checkedUrl(dto.url);
    const now = new Date();
    const id = randomUUID();
    const secret = newSecret();
    const w = await this.webhooks.insert({
      createdAt: now,
      updatedAt: now,
      id,
      tenantId: access.vault.tenantId,
      vaultId: access.vault.id,
      url,
      events: dto.events,
      description: dto.description ?? null,
      secret: this.secrets.seal(secret, id),
      enabled: true,
      createdBy: principal.openId,
    });
    return withSecret(w, secret);
  }

  async get(access: VaultAccess, id: string): Promise<WebhookView> {
    return toWebhookView(await this.found(access, id));
  }

  /**
   * Replaces the fields; `enabled: true` resumes a disabled subscription (its pending deliveries
   * go on), and the caller takes over one disabled because its creator's account was deleted
   * (it becomes the account the subscription answers for). Writes those columns only: a
   * re-encryption of the secrets meanwhile is kept.
   */
  async update(access: VaultAccess, principal: Principal, id: string, dto: UpdateWebhookDto): Promise<WebhookView> {
    const w = await this.found(access, id);
    const saved = await this.webhooks.updateSettings(w.vaultId, w.id, {
      url: await this.checkedUrl(dto.url),
      events: dto.events,
      description: dto.description ?? null,
      enabled: dto.enabled,
      disabledCode: 'disabled_by_owner',
      disabledReason: 'disabled by the owner',
      resumedBy: principal.openId,
    });
    if (!saved) throw webhookNotFound();
    if (saved.enabled) this.dispatcher.wake();
    return toWebhookView(saved);
  }

  async remove(access: VaultAccess, id: string): Promise<void> {
    await this.webhooks.delete((await this.found(access, id)).id);
  }

  /**
   * A new secret; the old one (kept as stored when the new one is written) keeps signing beside
   * it for 24 hours.
   */
  async rotateSecret(access: VaultAccess, id: string): Promise<WebhookWithSecretView> {
    const w = await this.found(access, id);
    const secret = newSecret();
    const saved = await this.webhooks.rotateSecret(
      w.vaultId,
      w.id,
      this.secrets.seal(secret, w.id),
      new Date(Date.now() + ROTATION_OVERLAP_MS),
    );
    if (!saved) throw webhookNotFound();
    return withSecret(saved, secret);
  }

  /**
   * A page of the delivery log, newest event first: by number, or after the page whose
   * `nextCursor` is given (keyset: deliveries created meanwhile shift nothing). `items` and
   * `pageInfo` repeat `data` and `page` until their sunset (docs/webhooks.md).
   */
  async deliveries(access: VaultAccess, id: string, q: WebhookDeliveriesQuery): Promise<WebhookDeliveryPage> {
    if (q.cursor !== undefined && q.page !== undefined) throw pageAndCursor();
    const cursor = q.cursor === undefined ? null : decodeDeliveryCursor(q.cursor);
    const w = await this.found(access, id);
    const page = cursor?.page ?? q.page ?? 1;
    const size = q.pageSize ?? DEFAULT_PAGE_SIZE;
    const total = await this.deliveryRows.countDeliveries(w.id);
    // One more than the page holds says whether a next page exists.
    const slice = await this.deliveryRows.deliveries(w.id, cursor?.after ?? null, (page - 1) * size, size + 1);
    const more = slice.rows.length > size;
    const data = slice.rows.slice(0, size).map(toDeliveryView);
    const nextCursor = more ? encodeDeliveryCursor({ after: slice.keys[size - 1], page: page + 1 }) : null;
    const info = pageInfo(total, page, size);
    return { data, page: info, nextCursor, items: data, pageInfo: info };
  }

  /**
   * Sends a delivery again now, with a fresh retry schedule (same webhook-id and body).
   * Not while an attempt holds it: redelivering it then could send it twice at once, so
   * the answer is 409 with the time its lease runs out (the attempt ends by then).
   */
  async redeliver(access: VaultAccess, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const w = await this.found(access, id);
    if (!isUuid(deliveryId)) throw deliveryNotFound();
    const requeued = await this.deliveryRows.requeue(w.id, deliveryId);
    const d = await this.deliveryRows.findDelivery(w.id, deliveryId);
    if (!d) throw deliveryNotFound();
    if (!requeued) throw deliveryInFlight(((d.leasedUntil?.getTime() ?? 0) - Date.now()) / 1000);
    this.dispatcher.wake();
    return toDeliveryView(d);
  }

  private async found(access: VaultAccess, id: string): Promise<WebhookEntity> {
    const w = isUuid(id) ? await this.webhooks.find(access.vault.id, id) : null;
    if (!w) throw webhookNotFound();
    return w;
  }

  private async checkedUrl(raw: string): Promise<string> {
    try {
      return (await this.guard.check(raw)).toString();
    } catch (err) {
      if (err instanceof TargetRefusedError) throw targetRefused(err.message);
      throw err;
    }
  }
}
