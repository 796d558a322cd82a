/** Allowed characters of an event namespace (a NATS subject token and stream name part). */
export const EVENTS_NAMESPACE_PATTERN = /^[A-Za-z0-9_-]*$/;

/**
 * Isolates subjects, streams and consumers of one deployment (or one test run)
 * on a shared NATS: with namespace `ns`, subject `vault.x` becomes `ns.vault.x`
 * and stream `VAULT_EVENTS` becomes `ns_VAULT_EVENTS`. The empty namespace
 * leaves names as they are.
 */
export class EventNamespace {
  constructor(readonly prefix = '') {
    if (!EVENTS_NAMESPACE_PATTERN.test(prefix)) {
      throw new Error(`invalid events namespace "${prefix}": use letters, digits, _ and -`);
    }
  }

  subject(subject: string): string {
    return this.prefix ? `${this.prefix}.${subject}` : subject;
  }

  /** The subject without the namespace, as stored in the outbox and the contract constants. */
  unprefix(subject: string): string {
    const head = this.prefix ? `${this.prefix}.` : '';
    return head && subject.startsWith(head) ? subject.slice(head.length) : subject;
  }

  stream(name: string): string {
    return this.prefix ? `${this.prefix}_${name}` : name;
  }
}
