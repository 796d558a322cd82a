import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { escapeLiteral } from 'pg';
import type { Subject, VaultEventBase } from '@vault/contracts';
import { currentTraceContext } from '@vault/platform/observability';
import type { EntityManager } from 'typeorm';
import { typedParams, type RowsWrite } from '../../persistence/entity-rows';
import { EventPublisher } from './event-publisher';

/**
 * The outbox row (persistence/outbox/outbox-event.entity.ts) as one plain INSERT: it runs in
 * every change's transaction, and TypeORM's insert builder cost more than the statement.
 */
const OUTBOX_INSERT =
  'INSERT INTO "outbox_events" (id, subject, tenant_id, vault_id, payload, occurred_at, published_at, trace_context)';
const outboxValues = (v: string[]) => `${v.slice(0, 6).join(', ')}, NULL, ${v[6]}`;
const insertOutboxEvent = (v: string[]) => `${OUTBOX_INSERT}\n  VALUES (${outboxValues(v)})`;
const INSERT_OUTBOX_EVENT = insertOutboxEvent(['$1', '$2', '$3', '$4', '$5', '$6', '$7']);
/** The types of valuesOf's columns (typedParams). */
const OUTBOX_VALUE_TYPES = ['uuid', 'text', 'text', 'uuid', 'jsonb', 'timestamptz', 'text'];

/** Writes each event as an outbox row; a relay delivers unpublished rows to JetStream. */
@Injectable()
export class OutboxEventPublisher extends EventPublisher {
  async publish(manager: EntityManager, subject: Subject, payload: VaultEventBase): Promise<string> {
    const id = randomUUID();
    await manager.query(INSERT_OUTBOX_EVENT, valuesOf(id, subject, payload));
    return id;
  }

  publishStatement(subject: Subject, payload: VaultEventBase): { id: string; sql: string } {
    const id = randomUUID();
    const written = valuesOf(id, subject, payload).map((v) =>
      v === null ? 'NULL' : escapeLiteral(v instanceof Date ? v.toISOString() : v),
    );
    return { id, sql: insertOutboxEvent(written) };
  }

  publishFrom(subject: Subject, payload: VaultEventBase): { id: string } & RowsWrite {
    const id = randomUUID();
    return {
      id,
      params: valuesOf(id, subject, payload),
      sql: (source, first) => `${OUTBOX_INSERT} SELECT ${outboxValues(typedParams(OUTBOX_VALUE_TYPES, first))} FROM ${source}`,
    };
  }
}

/** The outbox row's values, in INSERT_OUTBOX_EVENT's order. */
function valuesOf(
  id: string,
  subject: Subject,
  payload: VaultEventBase,
): [string, string, string, string, string, Date, string | null] {
  return [
    id,
    subject,
    payload.tenantId,
    payload.vault.id,
    JSON.stringify(payload),
    new Date(payload.occurredAt),
    currentTraceContext() ?? null,
  ];
}
