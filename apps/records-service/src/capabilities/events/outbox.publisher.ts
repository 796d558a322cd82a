import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Subject, VaultEventBase } from '@vault/contracts';
import { currentTraceContext } from '@vault/platform/observability';
import type { EntityManager } from 'typeorm';
import { EventPublisher } from './event-publisher';
import { OutboxEventEntity } from '../../persistence/outbox/outbox-event.entity';

/** Writes each event as an outbox row; a relay delivers unpublished rows to JetStream. */
@Injectable()
export class OutboxEventPublisher extends EventPublisher {
  async publish(manager: EntityManager, subject: Subject, payload: VaultEventBase): Promise<string> {
    const id = randomUUID();
    await manager.insert(OutboxEventEntity, {
      id,
      subject,
      tenantId: payload.tenantId,
      vaultId: payload.vault.id,
      payload: { ...payload },
      occurredAt: new Date(payload.occurredAt),
      publishedAt: null,
      traceContext: currentTraceContext(),
    });
    return id;
  }
}
