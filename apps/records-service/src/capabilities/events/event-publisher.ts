import type { Subject, VaultEventBase } from '@vault/contracts';
import type { EntityManager } from 'typeorm';

/**
 * The one way vault and record changes announce themselves. Implementations write
 * inside the caller's transaction (`manager`), so an event exists exactly when the
 * change commits. Returns the event id.
 */
export abstract class EventPublisher {
  abstract publish(manager: EntityManager, subject: Subject, payload: VaultEventBase): Promise<string>;
}
