import { Logger } from '@nestjs/common';
import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { lastValueFrom } from 'rxjs';
import { consumeInTrace } from '../../observability/trace-context';
import { Consumer, resolveOptions } from './consumer-options';
import { AfterAck, DurableConsumerRunner } from './durable-consumer';
import {
  JETSTREAM_CONSUMER,
  JETSTREAM_TRANSPORT,
  JetStreamConsumerOptions,
  JetStreamConsumerSettings,
  JetStreamContext,
} from './jetstream-consumer';
import { DecodedPayloads, decodeMessage, Delivery } from './jetstream-message';
import { EventNamespace } from './namespace';
import { ensureStream, StreamSpec } from './streams';

export interface JetStreamServerOptions {
  /** The process's NATS connection (NATS_CONNECTION); the transport neither opens nor closes it. */
  connection: NatsConnection;
  /** Prefixes subjects and stream names (test runs and deployments sharing a server). */
  namespace?: EventNamespace;
  /** Streams created (or updated) before the consumers start; given with their namespaced names. */
  streams?: StreamSpec[];
  /** Replicas and duplicate window of the dead-letter streams (default 1 and 2 minutes). */
  deadLetterStreams?: { replicas: number; duplicateWindowMs: number };
  /** Settings per durable name over the decorator's; `false` leaves that consumer off in this process. */
  consumers?: Record<string, JetStreamConsumerSettings | false>;
  /** Pause between start attempts while JetStream cannot be reached (default 1 s). */
  restartDelayMs?: number;
  logger?: Logger;
}

/**
 * The transport of every JetStream consumer: each `@EventPattern` handler with
 * `jetStreamConsumer({...})` extras gets its own durable pull consumer
 * (DurableConsumerRunner). A message is acknowledged once the handler's promise
 * resolves (its transaction committed); a rejection has it delivered again after
 * an exponential, bounded backoff; after MaxDeliver deliveries, or at once when its
 * payload fails validation against the contract class, it goes to the dead-letter
 * stream. `close()` (app shutdown, SIGTERM) stops pulling, lets the batch in
 * progress finish and hands buffered messages back.
 */
export class JetStreamServer extends Server implements CustomTransportStrategy {
  override readonly transportId = JETSTREAM_TRANSPORT;
  protected override readonly logger: Logger;
  private readonly namespace: EventNamespace;
  private readonly consumers = new Map<string, Consumer>();
  private readonly runners = new Map<string, DurableConsumerRunner<Delivery>>();
  /** Each message parsed and validated once for all the consumers of this process. */
  readonly decoded = new DecodedPayloads();
  private closing = false;
  private starting?: Promise<void>;

  constructor(private readonly options: JetStreamServerOptions) {
    super();
    this.logger = options.logger ?? new Logger('JetStream');
    this.namespace = options.namespace ?? new EventNamespace();
  }

  /** Registers a handler under its durable name (Nest would chain handlers of one subject). */
  override addHandler(
    pattern: unknown,
    callback: MessageHandler,
    isEventHandler = false,
    extras: Record<string, unknown> = {},
  ): void {
    const subject = this.normalizePattern(pattern as string);
    const declared = extras[JETSTREAM_CONSUMER] as JetStreamConsumerOptions | undefined;
    if (!isEventHandler || !declared?.durable || !declared.stream) {
      throw new Error(`${subject}: a JetStream handler is an @EventPattern with jetStreamConsumer({ durable, stream }) extras`);
    }
    if (this.consumers.has(declared.durable)) {
      throw new Error(`${subject}: durable consumer ${declared.durable} has two handlers`);
    }
    super.addHandler(`${subject}#${declared.durable}`, callback, isEventHandler, extras);
    const settings = this.options.consumers?.[declared.durable];
    if (settings === false) return;
    this.consumers.set(declared.durable, {
      pattern: subject,
      handler: callback,
      options: resolveOptions(declared, settings ?? {}),
    });
  }

  /** Starts every consumer in the background (retrying while JetStream is unreachable). */
  listen(callback: (err?: unknown) => void): void {
    this.closing = false;
    this.starting = this.startAll();
    callback();
  }

  /** Resolves once every consumer has started. */
  ready(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  /** Stops pulling, finishes the batches in progress and hands buffered messages back. */
  async close(): Promise<void> {
    this.closing = true;
    await this.starting;
    const runners = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(runners.map((r) => r.stop()));
  }

  /** Messages handled (acknowledged) and dead-lettered by a consumer since start. */
  stats(durable: string): { processed: number; deadLettered: number } {
    const r = this.runners.get(durable);
    return { processed: r?.processed ?? 0, deadLettered: r?.deadLettered ?? 0 };
  }

  /** Durable names of the consumers this server runs. */
  durables(): string[] {
    return [...this.consumers.keys()];
  }

  on(): never {
    throw new Error('the JetStream transport emits no events');
  }

  unwrap<T>(): T {
    return this.options.connection as T;
  }

  /** Starts the consumers independently: one whose stream is missing does not hold back the others. */
  private async startAll(): Promise<void> {
    await Promise.all([...this.consumers.values()].map((c) => this.startRetrying(c)));
  }

  private async startRetrying(consumer: Consumer): Promise<void> {
    for (let attempt = 1; !this.closing; attempt++) {
      try {
        await this.start(consumer);
        this.logger.log(`consumer ${consumer.options.durable} started on ${consumer.pattern}`);
        return;
      } catch (err) {
        if (attempt === 1 || attempt % 30 === 0) {
          this.logger.warn(`consumer ${consumer.options.durable} cannot start yet: ${err}`);
        }
        await new Promise((r) => setTimeout(r, this.options.restartDelayMs ?? 1000));
      }
    }
  }

  private async start(c: Consumer): Promise<void> {
    const { connection: nc, deadLetterStreams } = this.options;
    const ns = this.namespace;
    const o = c.options;
    const jsm = await jetstreamManager(nc);
    for (const stream of this.options.streams ?? []) await ensureStream(jsm, stream);
    const runner = new DurableConsumerRunner<Delivery>({
      js: jetstream(nc),
      jsm,
      consumer: {
        stream: ns.stream(o.stream),
        durable: o.durable,
        filterSubject: (o.filterSubjects ?? [c.pattern]).map((s) => ns.subject(s)),
        ackWaitMs: o.ackWaitMs,
        maxDeliver: o.maxDeliver,
        maxAckPending: o.maxAckPending,
      },
      deadLetter: {
        stream: {
          name: ns.stream(o.deadLetter.stream),
          subjects: o.deadLetter.subjects.map((s) => ns.subject(s)),
          replicas: deadLetterStreams?.replicas ?? 1,
          duplicateWindowMs: deadLetterStreams?.duplicateWindowMs ?? 120_000,
        },
        subject: ns.subject(o.deadLetter.subject),
      },
      batchSize: o.batch ? o.batchSize : 1,
      retryDelayMs: (delivery) => Math.min(o.backoff.initialMs * 2 ** (delivery - 1), o.backoff.maxMs),
      logger: this.logger,
      handler: {
        decode: (msg) => decodeMessage(msg, this.namespace, c.options.payload, this.decoded),
        commit: (deliveries) => this.dispatch(c, deliveries),
      },
    });
    await runner.start();
    if (this.closing) return runner.stop();
    this.runners.set(o.durable, runner);
  }

  /**
   * Calls the handler in the trace of the producer (traceparent header), when there is
   * one; resolves once its promise (or observable) completes, rejects with its error.
   */
  private dispatch(c: Consumer, deliveries: Delivery[]): Promise<AfterAck | undefined> {
    return consumeInTrace(
      c.options.durable,
      deliveries.map((d) => d.msg),
      () => this.handle(c, deliveries),
    );
  }

  /** Runs the handler; resolves to what it asked to run once the acks are confirmed (JetStreamContext.afterAck). */
  private async handle(c: Consumer, deliveries: Delivery[]): Promise<AfterAck | undefined> {
    const events = deliveries.map((d) => d.event);
    const ctx = new JetStreamContext([events, deliveries.map((d) => d.msg), c.options.durable]);
    // A rejection carries the handler's own error (JetStreamHandlerErrorFilter): the dead letter names it.
    const result = await c.handler(c.options.batch ? events : events[0].data, ctx);
    await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
    return ctx.afterAcks();
  }
}
