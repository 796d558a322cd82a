import { EVENT_STREAMS } from '@vault/contracts';
import { EventNamespace, StreamSpec } from '@vault/platform/events';
import { EventsEnv } from './events.env';

/** Table and LISTEN/NOTIFY channel of the transactional outbox. */
export const OUTBOX_TABLE = 'outbox_events';
export const OUTBOX_CHANNEL = 'outbox_events';

/** The vault events stream inside the configured namespace. */
export class EventStreams {
  readonly namespace: EventNamespace;
  readonly events: StreamSpec;

  constructor(env: EventsEnv) {
    this.namespace = new EventNamespace(env.EVENTS_NAMESPACE);
    const base = EVENT_STREAMS.vaultEvents;
    this.events = {
      name: this.namespace.stream(base.name),
      subjects: base.subjects.map((s) => this.namespace.subject(s)),
      replicas: env.EVENTS_STREAM_REPLICAS,
      duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS,
    };
  }
}
