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

/**
 * The event a message carries: its id (Nats-Msg-Id), its subject without the namespace and
 * its JSON payload, validated against `payload` when given. InvalidMessageError (the message
 * is dead-lettered at once) when any of them is missing or wrong.
 */
export async function decodeMessage(
  msg: JsMsg,
  namespace: EventNamespace,
  payload: Type<object> | Record<string, Type<object>> | undefined,
): Promise<Delivery> {
  const id = msg.headers?.get('Nats-Msg-Id');
  if (!id) throw new InvalidMessageError('no Nats-Msg-Id header (message id)');
  const subject = namespace.unprefix(msg.subject);
  let body: unknown;
  try {
    body = msg.json();
  } catch {
    throw new InvalidMessageError('payload is not JSON');
  }
  const data = payload ? await validPayload(payload, subject, body) : body;
  return { msg, event: { id, subject, data, sequence: msg.seq, deliveryCount: msg.info.deliveryCount } };
}

/** The payload as an instance of its contract class; InvalidMessageError when it does not match. */
async function validPayload(
  payload: Type<object> | Record<string, Type<object>>,
  subject: string,
  body: unknown,
): Promise<object> {
  const cls = typeof payload === 'function' ? payload : payload[subject];
  if (!cls) throw new InvalidMessageError(`no payload class for subject ${subject}`);
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
