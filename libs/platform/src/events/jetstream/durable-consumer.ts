import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { consumerDeadLettered, consumerProcessed, consumerRedelivered, watchConsumerPending } from '../../observability/metrics';
import { DurableConsumerSpec, ensureDurableConsumer, ensureStream, StreamSpec } from './streams';

/** `<class>: <message>` of an error (the class even when it leaves `name` as "Error"), else its text. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cls = err.name && err.name !== 'Error' ? err.name : err.constructor?.name || 'Error';
    return err.message ? `${cls}: ${err.message}` : cls;
  }
  if (typeof err === 'object' && err !== null) {
    try {
      return JSON.stringify(err);
    } catch {
      return String(err);
    }
  }
  return String(err);
}

/** What the consumers and the outbox relay log through (a Nest Logger fits). */
export interface RelayLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Thrown by `decode` for a message that can never be processed: it is dead-lettered at once. */
export class InvalidMessageError extends Error {}

export interface DurableBatchHandler<T> {
  /** Parses and validates one message; throw InvalidMessageError to dead-letter it. */
  decode(msg: JsMsg): T | Promise<T>;
  /**
   * Stores the batch in ONE transaction; a throw has the messages delivered again. It may
   * resolve to a function to run once the server has confirmed the batch's acks (for work
   * that reads the consumer's ack floor, which a plain ack reaches later).
   */
  commit(items: T[]): Promise<void | AfterAck>;
}

/** Runs once the server has confirmed the acks of the batch it was returned for. */
export type AfterAck = () => void;

export interface DeadLetterSpec {
  /** Stream holding dead letters; its subjects must not overlap the source stream's. */
  stream: StreamSpec;
  /** Subject dead letters are published on (inside `stream.subjects`). */
  subject: string;
}

export interface DurableConsumerRunnerOptions<T> {
  js: JetStreamClient;
  jsm: JetStreamManager;
  consumer: DurableConsumerSpec;
  deadLetter: DeadLetterSpec;
  /** Messages stored per transaction at most. */
  batchSize: number;
  /** Delay before a failed message is delivered again (by the delivery that failed, 1-based). */
  retryDelayMs: number | ((deliveryCount: number) => number);
  handler: DurableBatchHandler<T>;
  logger: RelayLogger;
}

/** Delay of the redelivery of messages a stopping runner hands back. */
const HANDBACK_DELAY_MS = 1000;

/** Headers a dead letter carries. */
export const DEAD_LETTER_HEADERS = {
  reason: 'Dead-Letter-Reason',
  subject: 'Dead-Letter-Subject',
  stream: 'Dead-Letter-Stream',
  sequence: 'Dead-Letter-Sequence',
  deliveries: 'Dead-Letter-Deliveries',
} as const;

/**
 * Runs a durable pull consumer with explicit acks: messages are decoded,
 * stored in batches by the handler and acknowledged only after the handler's
 * commit. Unacknowledged messages come back after AckWait (or at once on a
 * nak); a message that cannot be decoded, or still fails on its last allowed
 * delivery (MaxDeliver), is published to the dead-letter subject and
 * terminated. Several runners on the same durable share the messages.
 */
export class DurableConsumerRunner<T> {
  private running = false;
  private loop?: Promise<void>;
  private messages?: ConsumerMessages;
  private buffer: JsMsg[] = [];
  private processing?: Promise<void>;
  private unwatchPending?: () => void;
  /** Messages committed and acknowledged since start. */
  processed = 0;
  /** Messages dead-lettered since start. */
  deadLettered = 0;

  constructor(private readonly opts: DurableConsumerRunnerOptions<T>) {}

  async start(): Promise<void> {
    if (this.running) return;
    await ensureStream(this.opts.jsm, this.opts.deadLetter.stream);
    await ensureDurableConsumer(this.opts.jsm, this.opts.consumer);
    this.running = true;
    const { jsm, consumer } = this.opts;
    this.unwatchPending = watchConsumerPending(consumer.durable, async () => {
      const info = await jsm.consumers.info(consumer.stream, consumer.durable);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    });
    this.loop = this.run();
  }

  /** Stops pulling, finishes the batch in progress, and hands buffered messages back. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unwatchPending?.();
    await this.messages?.close().catch(() => undefined);
    await this.loop;
    await this.processing;
    // A short delay: redelivered at once, they could still reach this process's pull
    // request (the server drops it when it sees the unsubscription).
    for (const m of this.buffer.splice(0)) m.nak(HANDBACK_DELAY_MS);
  }

  private async run(): Promise<void> {
    const { js, consumer: spec, batchSize } = this.opts;
    while (this.running) {
      try {
        const consumer = await js.consumers.get(spec.stream, spec.durable);
        this.messages = await consumer.consume({ max_messages: Math.max(batchSize * 4, 100) });
        if (!this.running) await this.messages.close();
        for await (const m of this.messages) {
          this.buffer.push(m);
          this.kick();
        }
      } catch (err) {
        if (!this.running) break;
        this.opts.logger.warn(`consumer ${spec.durable}: ${err}; resubscribing`);
        await new Promise((r) => setTimeout(r, 1000));
        await ensureDurableConsumer(this.opts.jsm, spec).catch(() => undefined);
      }
    }
  }

  private kick(): void {
    if (this.processing) return;
    this.processing = (async () => {
      // After stop() only the batch in progress finishes; the rest is handed back.
      while (this.running && this.buffer.length > 0) {
        const batch = this.buffer.splice(0, this.opts.batchSize);
        await this.processBatch(batch).catch((err) => this.opts.logger.error(`consumer ${this.opts.consumer.durable}: ${err}`));
      }
      this.processing = undefined;
    })();
  }

  private async processBatch(msgs: JsMsg[]): Promise<void> {
    const good: { msg: JsMsg; value: T }[] = [];
    for (const msg of msgs) {
      if (msg.info.deliveryCount > 1) consumerRedelivered.inc({ consumer: this.opts.consumer.durable });
      try {
        good.push({ msg, value: await this.opts.handler.decode(msg) });
      } catch (err) {
        if (err instanceof InvalidMessageError) await this.deadLetter(msg, `invalid: ${err.message}`);
        else msg.nak(this.retryDelay(msg));
      }
    }
    if (good.length === 0) return;
    try {
      this.ack(
        good.map((g) => g.msg),
        await this.opts.handler.commit(good.map((g) => g.value)),
      );
      return;
    } catch (err) {
      if (good.length === 1) return this.failed(good[0].msg, err);
    }
    // One bad message must not hold back the others: store them one by one.
    for (const g of good) {
      try {
        this.ack([g.msg], await this.opts.handler.commit([g.value]));
      } catch (err) {
        await this.failed(g.msg, err);
      }
    }
  }

  /** Acknowledges the messages; with `then`, confirmed acks (ackAck), then `then` (not awaited). */
  private ack(msgs: JsMsg[], then: void | AfterAck): void {
    if (then) {
      // an ack the server did not confirm (a timeout, a lost connection) still counts as
      // sent: the message comes back after AckWait if it was lost, and `then` runs anyway
      void Promise.all(msgs.map((m) => m.ackAck().catch(() => false)))
        .then(then)
        .catch((err: unknown) =>
          this.opts.logger.error(`consumer ${this.opts.consumer.durable}: after the acks: ${describeError(err)}`),
        );
    } else {
      for (const m of msgs) m.ack();
    }
    this.processed += msgs.length;
    consumerProcessed.inc({ consumer: this.opts.consumer.durable }, msgs.length);
  }

  private async failed(msg: JsMsg, err: unknown): Promise<void> {
    if (msg.info.deliveryCount >= this.opts.consumer.maxDeliver) {
      await this.deadLetter(msg, `failed ${msg.info.deliveryCount} deliveries: ${describeError(err)}`);
    } else {
      this.opts.logger.warn(
        `consumer ${this.opts.consumer.durable}: delivery ${msg.info.deliveryCount} of ${msg.subject} failed: ${describeError(err)}`,
      );
      msg.nak(this.retryDelay(msg));
    }
  }

  private retryDelay(msg: JsMsg): number {
    const delay = this.opts.retryDelayMs;
    return typeof delay === 'number' ? delay : delay(msg.info.deliveryCount);
  }

  private async deadLetter(msg: JsMsg, reason: string): Promise<void> {
    const h = headers();
    h.set(DEAD_LETTER_HEADERS.reason, reason.slice(0, 500).replace(/[\r\n]+/g, ' '));
    h.set(DEAD_LETTER_HEADERS.subject, msg.subject);
    h.set(DEAD_LETTER_HEADERS.stream, msg.info.stream);
    h.set(DEAD_LETTER_HEADERS.sequence, String(msg.seq));
    h.set(DEAD_LETTER_HEADERS.deliveries, String(msg.info.deliveryCount));
    try {
      await this.opts.js.publish(this.opts.deadLetter.subject, msg.data, {
        headers: h,
        msgID: `${msg.info.stream}:${msg.seq}`,
      });
      msg.term(reason.slice(0, 200));
      this.deadLettered++;
      consumerDeadLettered.inc({ consumer: this.opts.consumer.durable });
      this.opts.logger.warn(`consumer ${this.opts.consumer.durable}: dead-lettered ${msg.subject} #${msg.seq}: ${reason}`);
    } catch (err) {
      this.opts.logger.warn(`consumer ${this.opts.consumer.durable}: dead-letter publish failed: ${err}`);
      msg.nak(this.retryDelay(msg));
    }
  }
}
