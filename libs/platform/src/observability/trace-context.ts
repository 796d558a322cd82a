import {
  context,
  type Context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/nats-core';

/**
 * W3C trace context carried with events: the outbox row keeps the producer's context
 * (`trace_context`), the relay sends it as the `traceparent`/`tracestate` NATS headers,
 * and the JetStream transport runs the handler in a span of the same trace. Everything
 * goes through @opentelemetry/api's propagator (the SDK's W3C TraceContext one): when
 * tracing is off the propagator is a no-op, so nothing is stored or sent.
 */
const tracer = () => trace.getTracer('@vault/platform/events');

/** The active trace context as a JSON object of W3C headers, for the outbox row; null when there is none (tracing off). */
export function currentTraceContext(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'] ? JSON.stringify(carrier) : null;
}

/** The context stored by currentTraceContext; undefined when none (or unreadable). */
function storedContext(stored: string | null | undefined): Context | undefined {
  if (!stored) return undefined;
  let carrier: unknown;
  try {
    carrier = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (typeof carrier !== 'object' || carrier === null) return undefined;
  const ctx = propagation.extract(ROOT_CONTEXT, carrier as Record<string, string>);
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

const natsSetter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const natsGetter: TextMapGetter<MsgHdrs | undefined> = {
  get: (carrier, key) => carrier?.get(key) || undefined,
  keys: (carrier) => carrier?.keys() ?? [],
};

/**
 * Publishes one outbox row in a PRODUCER span child of the context the row stored,
 * with that span's context written into `headers` (traceparent, tracestate). A row
 * without a stored context (tracing off when it was written) is published as is.
 */
export async function publishInTrace<T>(
  stored: string | null | undefined,
  subject: string,
  messageId: string,
  headers: MsgHdrs,
  publish: () => Promise<T>,
): Promise<T> {
  const parent = storedContext(stored);
  if (!parent) return publish();
  const span = tracer().startSpan(
    `${subject} publish`,
    {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': messageId },
    },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  propagation.inject(ctx, headers, natsSetter);
  return finished(span, context.with(ctx, publish));
}

/**
 * Runs a consumer's handler over `messages` in a CONSUMER span: the child of the first
 * message's producer context (so a single message continues its trace), linked to every
 * message's. Messages without trace headers (tracing off upstream, or here) run the
 * handler without a span.
 */
export function consumeInTrace<T>(
  name: string,
  messages: { headers?: MsgHdrs; subject: string }[],
  run: () => Promise<T>,
): Promise<T> {
  const traced = messages.flatMap((m) => {
    const c = propagation.extract(ROOT_CONTEXT, m.headers, natsGetter);
    const spanContext = trace.getSpanContext(c);
    return spanContext ? [{ context: c, link: { context: spanContext } as Link }] : [];
  });
  if (traced.length === 0) return run();
  const links = traced.map((t) => t.link);
  const parent = traced[0].context;
  const span = tracer().startSpan(
    `${name} process`,
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: {
        'messaging.system': 'nats',
        'messaging.consumer.group.name': name,
        'messaging.batch.message_count': messages.length,
        'messaging.destination.name': messages[0].subject,
      },
    },
    parent,
  );
  return finished(span, context.with(trace.setSpan(parent, span), run));
}

/** Ends `span` once `work` settles, marking it failed when it rejects. */
async function finished<T>(span: Span, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}
