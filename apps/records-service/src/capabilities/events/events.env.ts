import { OutboxEventsEnv } from '@vault/platform/events';
import { IsIn } from 'class-validator';

export const RUN_MODES = ['inline', 'off'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/**
 * Settings of the vault event stream and of the outbox relay that feeds it, validated
 * at boot: the platform's outbox settings (namespace, replicas, duplicate window, relay
 * batch, poll and retention) and where the relay runs.
 */
export class EventsEnv extends OutboxEventsEnv {
  /** `inline`: this process relays the outbox; `off`: another process does. */
  @IsIn(RUN_MODES)
  ACTIVITY_LOG_RELAY: RunMode = 'inline';
}
