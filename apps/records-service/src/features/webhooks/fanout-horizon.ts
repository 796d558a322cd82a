import { Inject, Injectable } from '@nestjs/common';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { NATS_CONNECTION } from '@vault/platform/events';
import { EventStreams } from '../../capabilities/events/event-streams';
import { WebhooksEnv } from './webhooks.env';

/** The durable consumer of the webhook fan-out. */
export const WEBHOOK_DURABLE = 'webhook_dispatcher';

/** Stored stretches above the floor kept at most (gaps beyond them are left to the ack floor). */
const MAX_STRETCHES = 1024;

/**
 * How far the fan-out has stored every event's deliveries: every event up to this stream
 * sequence has its deliveries stored. Above it an earlier event may still be missing (handed
 * to a process that died before committing, to another instance still storing it, or handed
 * back after a failure), and a later event of the same vault must wait for it (docs/webhooks.md,
 * Order). Two sources raise it, and it only rises:
 * - the `webhook_dispatcher` consumer's ack floor in JetStream (the fan-out acknowledges an
 *   event only after its deliveries committed): read when asked (`current`);
 * - the batches this process's fan-out stored (`stored`): a batch that follows on from the
 *   floor without a gap raises it at once, with no question to JetStream and no wait for the
 *   acknowledgements to land. Stretches stored above a gap (another instance holds the events
 *   between) are kept and join the floor when it reaches them.
 * While JetStream cannot be asked, the last floor is used.
 */
@Injectable()
export class FanoutHorizon {
  private readonly stream: string;
  private jsm?: JetStreamManager;
  private floor = 0;
  /** Stored stretches above the floor, [first, last] stream sequences, in order, apart. */
  private stretches: [number, number][] = [];
  private askedAt = 0;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly env: WebhooksEnv,
  ) {
    this.stream = new EventStreams(env).events.name;
  }

  /** The floor as known now (events up to it are stored). */
  get known(): number {
    return this.floor;
  }

  /**
   * The fan-out of this process committed the deliveries of the events with these stream
   * sequences. True when the floor reached stretches stored before them (their deliveries may
   * be claimed now).
   */
  stored(sequences: number[]): boolean {
    const before = this.stretches;
    ({ floor: this.floor, stretches: this.stretches } = settle(this.floor, [...before, ...stretchesOf(sequences)]));
    return before.some(([first]) => first <= this.floor);
  }

  /** The floor once the events with these stream sequences are stored too (the horizon is left as it is). */
  reachedWith(sequences: number[]): number {
    return settle(this.floor, [...this.stretches, ...stretchesOf(sequences)]).floor;
  }

  /**
   * The floor, for a dispatcher whose own fan-out stored up to `needed`: the floor known
   * here when it reaches that far and JetStream was asked within WEBHOOK_POLL_MS (so events
   * other instances stored are seen within that time), else the ack floor read now.
   */
  async upTo(needed: number): Promise<number> {
    if (this.floor >= needed && Date.now() - this.askedAt < this.env.WEBHOOK_POLL_MS) return this.floor;
    return this.current();
  }

  /** The ack floor's stream sequence now (or the floor last known), with what this process stored. */
  async current(): Promise<number> {
    try {
      this.jsm ??= await jetstreamManager(this.nc);
      const acked = (await this.jsm.consumers.info(this.stream, WEBHOOK_DURABLE)).ack_floor.stream_seq;
      this.askedAt = Date.now();
      ({ floor: this.floor, stretches: this.stretches } = settle(Math.max(this.floor, acked), this.stretches));
    } catch {
      // NATS or the consumer is unreachable: deliveries up to the last known floor go on.
    }
    return this.floor;
  }
}

/** Stream sequences as stretches of consecutive ones. */
function stretchesOf(sequences: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const s of [...sequences].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], s);
    else out.push([s, s]);
  }
  return out;
}

/**
 * A floor with stored stretches above it: the stretches the floor reaches joined to it, the
 * others in order, merged, at most MAX_STRETCHES (the lowest).
 */
function settle(floor: number, stretches: [number, number][]): { floor: number; stretches: [number, number][] } {
  const kept: [number, number][] = [];
  for (const [first, last] of [...stretches].sort((a, b) => a[0] - b[0])) {
    const top = kept.at(-1);
    if (!top && first <= floor + 1) floor = Math.max(floor, last);
    else if (top && first <= top[1] + 1) top[1] = Math.max(top[1], last);
    else if (last > floor) kept.push([first, last]);
  }
  return { floor, stretches: kept.slice(0, MAX_STRETCHES) };
}
