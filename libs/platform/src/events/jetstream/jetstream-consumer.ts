import type { Type } from '@nestjs/common';
import { BaseRpcContext } from '@nestjs/microservices';
import type { JsMsg } from '@nats-io/jetstream';

/** Key of a handler's consumer options in the extras of `@EventPattern`. */
export const JETSTREAM_CONSUMER = 'jetstreamConsumer';

/** Identifies the JetStream transport (`@EventPattern(subject, JETSTREAM_TRANSPORT, extras)` pins a handler to it). */
export const JETSTREAM_TRANSPORT = Symbol('JETSTREAM');

/** Where a consumer's dead letters go (names without the namespace). */
export interface JetStreamDeadLetterOptions {
  /** Stream holding dead letters; its subjects must not overlap the source stream's. */
  stream: string;
  /** Subjects of that stream. */
  subjects: string[];
  /** Subject this consumer's dead letters are published on (inside `subjects`). */
  subject: string;
}

/**
 * A durable consumer behind one Nest handler. Names are given without the
 * namespace; the transport adds it. Settings given to the transport for the
 * same durable (JetStreamServerOptions.consumers) override these.
 */
export interface JetStreamConsumerOptions {
  /** Durable consumer name; every replica of the handler shares it (and the messages). */
  durable: string;
  /** Stream the consumer reads. */
  stream: string;
  /** Subjects taken from the stream (default: the handler's pattern); several need nats-server 2.10+. */
  filterSubjects?: string[];
  /**
   * Contract class the JSON payload is validated against (class-validator), or one
   * class per subject. A payload that fails is dead-lettered at once; without it
   * the handler receives the parsed JSON.
   */
  payload?: Type<object> | Record<string, Type<object>>;
  /**
   * The handler receives an array of JetStreamEvent (up to `batchSize`) and stores it in
   * one transaction; otherwise it receives one payload at a time.
   */
  batch?: boolean;
  /** Events per handler call at most with `batch` (default 100). */
  batchSize?: number;
  /** Deliveries of one message before it is dead-lettered (default 10). */
  maxDeliver?: number;
  /** Time the server waits for an ack before delivering again (default 30 s). */
  ackWaitMs?: number;
  /** Unacknowledged messages handed out at most, over all replicas (default 1000). */
  maxAckPending?: number;
  /** Delay before the next delivery after a failure: initialMs doubled per delivery, at most maxMs. */
  backoff?: { initialMs: number; maxMs: number };
  /** Default: stream `<stream>_DLQ`, subject `deadletter.<stream>.<durable>`. */
  deadLetter?: JetStreamDeadLetterOptions;
}

/** Runtime settings of a consumer (from the process's configuration), over its decorator options. */
export type JetStreamConsumerSettings = Partial<Omit<JetStreamConsumerOptions, 'durable'>>;

/**
 * The extras of `@EventPattern` that make a handler a durable JetStream consumer:
 * `@EventPattern(SUBJECT, jetStreamConsumer({ durable: 'x', stream: 'EVENTS', payload: XEvent }))`.
 */
export function jetStreamConsumer(options: JetStreamConsumerOptions): Record<string, unknown> {
  return { [JETSTREAM_CONSUMER]: options };
}

/** One message as a batch handler receives it. */
export interface JetStreamEvent<T = unknown> {
  /** The publisher's message id (Nats-Msg-Id header): the key to store it idempotently. */
  id: string;
  /** Subject without the namespace. */
  subject: string;
  /** The validated payload (an instance of the contract class). */
  data: T;
  /** Stream sequence. */
  sequence: number;
  /** Deliveries of the message so far, this one included. */
  deliveryCount: number;
}

/** `@Ctx()` of a JetStream handler: the events of the call, their messages and the durable name. */
export class JetStreamContext extends BaseRpcContext<[JetStreamEvent[], JsMsg[], string]> {
  /** The events of this call (one unless the handler takes batches). */
  getEvents(): JetStreamEvent[] {
    return this.args[0];
  }

  /** The first (for a single-event handler: the only) event of the call. */
  getEvent(): JetStreamEvent {
    return this.args[0][0];
  }

  getMessages(): JsMsg[] {
    return this.args[1];
  }

  getDurable(): string {
    return this.args[2];
  }

  private readonly acked: (() => void)[] = [];

  /**
   * Runs `fn` once the server has confirmed the acknowledgements of this call's events
   * (the transport acknowledges them after the handler): for work that reads the
   * consumer's ack floor, which a plain acknowledgement reaches a moment later.
   */
  afterAck(fn: () => void): void {
    this.acked.push(fn);
  }

  /** What afterAck registered, as one function (undefined: nothing). */
  afterAcks(): (() => void) | undefined {
    const fns = this.acked;
    return fns.length === 0 ? undefined : () => fns.forEach((fn) => fn());
  }
}
