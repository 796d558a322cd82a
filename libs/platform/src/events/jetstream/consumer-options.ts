import type { MessageHandler } from '@nestjs/microservices';
import type { JetStreamConsumerOptions, JetStreamConsumerSettings } from './jetstream-consumer';

/** A consumer's options once resolved: every setting has its value. */
export type ResolvedConsumerOptions = Required<Omit<JetStreamConsumerOptions, 'payload' | 'filterSubjects'>> &
  Pick<JetStreamConsumerOptions, 'payload' | 'filterSubjects'>;

/** One registered handler with its resolved consumer options. */
export interface Consumer {
  pattern: string;
  handler: MessageHandler;
  options: ResolvedConsumerOptions;
}

const DEFAULTS = {
  batch: false,
  batchSize: 100,
  maxDeliver: 10,
  ackWaitMs: 30_000,
  maxAckPending: 1000,
  backoff: { initialMs: 1000, maxMs: 60_000 },
};

/** Decorator options, then the process's settings, then the defaults. */
export function resolveOptions(declared: JetStreamConsumerOptions, settings: JetStreamConsumerSettings): ResolvedConsumerOptions {
  const o = { ...declared, ...settings };
  const stream = o.stream ?? declared.stream;
  const tag = stream.toLowerCase();
  return {
    ...o,
    stream,
    batch: o.batch ?? DEFAULTS.batch,
    batchSize: o.batchSize ?? DEFAULTS.batchSize,
    maxDeliver: o.maxDeliver ?? DEFAULTS.maxDeliver,
    ackWaitMs: o.ackWaitMs ?? DEFAULTS.ackWaitMs,
    maxAckPending: o.maxAckPending ?? DEFAULTS.maxAckPending,
    backoff: o.backoff ?? DEFAULTS.backoff,
    deadLetter: o.deadLetter ?? {
      stream: `${stream}_DLQ`,
      subjects: [`deadletter.${tag}.>`],
      subject: `deadletter.${tag}.${declared.durable}`,
    },
  };
}
