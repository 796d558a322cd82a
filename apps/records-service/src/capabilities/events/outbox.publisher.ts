import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Subject, VaultEventBase } from '@vault/contracts';
import { currentTraceContext } from '@vault/platform/observability';
import type { EntityManager } from 'typeorm';
import { EventPublisher } from './event-publisher';

/**
 * The outbox row (persistence/outbox/outbox-event.entity.ts) as one plain INSERT: it runs in
 * every change's transaction, and TypeORM's insert builder cost more than the statement.
 */
const INSERT_OUTBOX_EVENT = `INSERT INTO "outbox_events" (id, subject, tenant_id, vault_id, payload, occurred_at, published_at, trace_context)
  VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)`;

/** Writes each event as an outbox row; a relay delivers unpublished rows to JetStream. */
@Injectable()
export class OutboxEventPublisher extends EventPublisher {
  async publish(manager: EntityManager, subject: Subject, payload: VaultEventBase): Promise<string> {
    const id = randomUUID();
    await manager.query(INSERT_OUTBOX_EVENT, [
      id,
      subject,
      payload.tenantId,
      payload.vault.id,
      JSON.stringify(payload),
      new Date(payload.occurredAt),
      currentTraceContext() ?? null,
    ]);
    return id;
  }
}
