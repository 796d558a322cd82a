import type { Type } from '@nestjs/common';
import type { JsMsg } from '@nats-io/jetstream';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { InvalidMessageError } from './durable-consumer';
import type { JetStreamEvent } from './jetstream-consumer';
import type { EventNamespace } from './namespace';

/** A decoded message with the message itself (acked or nak'ed by the runner). */
export interface Delivery {
  event: JetStreamEvent;
  msg: JsMsg;
}

/** Messages whose decoded payloads a DecodedPayloads keeps (the newest, per process). */
const DECODED_KEPT = 4096;

type PayloadClass = Type<object>;

/** What a stream message decoded to: its JSON (or the reason it is none) and its payload per contract class. */
export interface Decoded {
  body: unknown;
  invalid?: InvalidMessageError;
  payloads: Map<PayloadClass, Promise<object>>;
}

/**
 * The payloads of the newest stream messages, parsed and validated once per process:
 * every durable consumer of a stream (activity log, change feed, webhooks) receives each
 * message, and the same message (stream and sequence) validated against the same class
 * gives the same instance, which the handlers share and must not change. A message pushed
 * out by newer ones is decoded again when it comes back (the same result).
 */
export class DecodedPayloads {
  private readonly kept = new Map<string, Decoded>();
  /** Decodes done and decodes answered from what was kept (for tests). */
  readonly counts = { parsed: 0, validated: 0, reused: 0 };

  constructor(private readonly capacity = DECODED_KEPT) {}

  /** The message's JSON body, parsed once; InvalidMessageError when it is not JSON. */
  body(msg: JsMsg): Decoded {
    const key = `${msg.info.stream}\u0000${msg.seq}`;
    let d = this.kept.get(key);
    if (d) {
      this.counts.reused++;
      return d;
    }
    this.counts.parsed++;
    d = { body: undefined, payloads: new Map() };
    try {
      d.body = msg.json();
    } catch {
      d.invalid = new InvalidMessageError('payload is not JSON');
    }
    this.kept.set(key, d);
    if (this.kept.size > this.capacity) this.kept.delete(this.kept.keys().next().value as string);
    return d;
  }

  /** The payload of `d` as an instance of `cls`, validated once. */
  payload(d: Decoded, cls: PayloadClass, subject: string): Promise<object> {
    let p = d.payloads.get(cls);
    if (!p) {
      this.counts.validated++;
      p = validPayload(cls, subject, d.body);
      // a rejection is handled by each caller; this one keeps the kept promise from being reported as unhandled
      p.catch(() => undefined);
      d.payloads.set(cls, p);
    }
    return p;
  }
}

/**
 * The event a message carries: its id (Nats-Msg-Id), its subject without the namespace and
 * its JSON payload, validated against `payload` when given. InvalidMessageError (the message
 * is dead-lettered at once) when any of them is missing or wrong.
 */
export async function decodeMessage(
  msg: JsMsg,
  namespace: EventNamespace,
  payload: Type<object> | Record<string, Type<object>> | undefined,
  decoded: DecodedPayloads = new DecodedPayloads(1),
): Promise<Delivery> {
  const id = msg.headers?.get('Nats-Msg-Id');
  if (!id) throw new InvalidMessageError('no Nats-Msg-Id header (message id)');
  const subject = namespace.unprefix(msg.subject);
  const d = decoded.body(msg);
  if (d.invalid) throw d.invalid;
  let data = d.body;
  if (payload) {
    const cls = typeof payload === 'function' ? payload : payload[subject];
    if (!cls) throw new InvalidMessageError(`no payload class for subject ${subject}`);
    data = await decoded.payload(d, cls, subject);
  }
  return { msg, event: { id, subject, data, sequence: msg.seq, deliveryCount: msg.info.deliveryCount } };
}

/** The payload as an instance of its contract class; InvalidMessageError when it does not match. */
async function validPayload(cls: PayloadClass, subject: string, body: unknown): Promise<object> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidMessageError('payload is not a JSON object');
  }
  const value = plainToInstance(cls, body);
  const errors = await validate(value, { forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new InvalidMessageError(`payload of ${subject} is invalid (${errors.map((e) => e.property).join(', ')})`);
  }
  return value;
}
