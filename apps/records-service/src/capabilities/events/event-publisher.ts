import type { Subject, VaultEventBase } from '@vault/contracts';
import type { EntityManager } from 'typeorm';
import type { RowsWrite } from '../../persistence/entity-rows';

/**
 * The one way vault and record changes announce themselves. Implementations write
 * inside the caller's transaction (`manager`), so an event exists exactly when the
 * change commits. Returns the event id.
 */
export abstract class EventPublisher {
  abstract publish(manager: EntityManager, subject: Subject, payload: VaultEventBase): Promise<string>;

  /**
   * The same write as `publish`, as one SQL statement with its values written in (escaped):
   * for a transaction whose last statement it is, sent with the COMMIT in one message
   * (Transactions.runCommittingWith).
   */
  abstract publishStatement(subject: Subject, payload: VaultEventBase): { id: string; sql: string };

  /**
   * The same write as `publish`, as a part of a larger statement that makes it once for each
   * row of its WITH query `source` (none when that has none): for a change that one statement
   * makes with its event (no transaction around it).
   */
  abstract publishFrom(subject: Subject, payload: VaultEventBase): { id: string } & RowsWrite;
}
