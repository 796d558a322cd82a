import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** Replicas of the stream (1 on a single server, 3 on a cluster). */
  replicas: number;
  /** Window in which JetStream drops a second message with the same Nats-Msg-Id. */
  duplicateWindowMs: number;
  /** Age after which messages are removed (0 keeps them until limits apply). */
  maxAgeMs?: number;
}

function isNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && (err.code === 404 || err.status === 404);
}

/** Creates the file-backed stream, or updates subjects, replicas and windows of an existing one. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const cfg = {
    subjects: spec.subjects,
    num_replicas: spec.replicas,
    duplicate_window: nanos(spec.duplicateWindowMs),
    max_age: nanos(spec.maxAgeMs ?? 0),
  };
  try {
    await jsm.streams.info(spec.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await jsm.streams.add({
        name: spec.name,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        ...cfg,
      });
      return;
    } catch (addErr) {
      // Another instance created it meanwhile: fall through to the update.
      await jsm.streams.info(spec.name).catch(() => {
        throw addErr;
      });
    }
  }
  await jsm.streams.update(spec.name, cfg);
}

export interface DurableConsumerSpec {
  stream: string;
  durable: string;
  /** Subject filter; several need nats-server 2.10 or later. */
  filterSubject: string | string[];
  /** Time the server waits for an ack before delivering the message again. */
  ackWaitMs: number;
  /** Deliveries of one message before it is given up (dead-lettered by the runner). */
  maxDeliver: number;
  /** Unacknowledged messages the server hands out at most (flow control). */
  maxAckPending: number;
}

/** Creates (or updates) a durable pull consumer with explicit acks. */
export async function ensureDurableConsumer(jsm: JetStreamManager, spec: DurableConsumerSpec): Promise<void> {
  const cfg = {
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: spec.maxDeliver,
    max_ack_pending: spec.maxAckPending,
    ...filterConfig(spec.filterSubject),
  };
  try {
    await jsm.consumers.info(spec.stream, spec.durable);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await jsm.consumers.add(spec.stream, {
        durable_name: spec.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...cfg,
      });
      return;
    } catch (addErr) {
      await jsm.consumers.info(spec.stream, spec.durable).catch(() => {
        throw addErr;
      });
    }
  }
  await jsm.consumers.update(spec.stream, spec.durable, cfg);
}

function filterConfig(filter: string | string[]): { filter_subject: string } | { filter_subjects: string[] } {
  if (!Array.isArray(filter)) return { filter_subject: filter };
  return filter.length === 1 ? { filter_subject: filter[0] } : { filter_subjects: filter };
}

/** Deletes streams if they exist (test clean-up). */
export async function deleteStreams(jsm: JetStreamManager, names: string[]): Promise<void> {
  for (const name of names) {
    await jsm.streams.delete(name).catch((err) => {
      if (!isNotFound(err)) throw err;
    });
  }
}
