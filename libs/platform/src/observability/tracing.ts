import { trace } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { IncomingMessage } from 'node:http';
import { basename, dirname } from 'node:path';

type Env = Record<string, string | undefined>;

let sdk: NodeSDK | undefined;

/**
 * Whether this process exports traces: only when an OTLP endpoint or a traces exporter
 * is configured (the standard OTEL_* variables), and not switched off by
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Off by default, so tests and
 * `npm start` pay nothing for it.
 */
export function tracingConfigured(env: Env = process.env): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporter = env['OTEL_TRACES_EXPORTER']?.trim().toLowerCase();
  if (exporter) return exporter !== 'none';
  return !!(env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim());
}

/**
 * service.name when OTEL_SERVICE_NAME is not set: the image's APP_NAME, else the app's folder
 * (`apps/<app>/src/main.ts` or `dist/apps/<app>/main.js`), with the worker mode of
 * `node main.js <mode>` appended (`records-service-activity-log-writer`).
 */
export function defaultServiceName(argv: string[] = process.argv, env: Env = process.env): string {
  const entry = argv[1] ?? 'app';
  let dir = dirname(entry);
  if (basename(dir) === 'src') dir = dirname(dir);
  const mode = argv[2];
  const app = env['APP_NAME']?.trim() || basename(dir) || 'app';
  return mode && mode !== 'migrate' && /^[a-z0-9-]+$/.test(mode) ? `${app}-${mode}` : app;
}

/** The name of this process in traces and metrics labels: OTEL_SERVICE_NAME, else defaultServiceName(). */
export function serviceName(env: Env = process.env): string {
  return env['OTEL_SERVICE_NAME']?.trim() || defaultServiceName(process.argv, env);
}

/** Probes and scrapes are not worth a trace each. */
function ignoredIncoming(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0];
  return path === '/metrics' || path === '/health/live' || path === '/health/ready';
}

/**
 * Starts the OpenTelemetry SDK (HTTP, express and pg instrumentation, W3C trace context,
 * OTLP exporter picked by OTEL_EXPORTER_OTLP_PROTOCOL) when tracing is configured.
 * It must run before express, pg and http are first required: main.ts imports
 * `@vault/platform/tracing` first for that. Returns whether tracing is on.
 */
export function startTracing(env: Env = process.env): boolean {
  if (sdk) return true;
  if (!tracingConfigured(env)) return false;
  // Loaded only when tracing is on: the SDK and its instrumentations cost about half a
  // second and 35 MB at start. (Still plain requires: webpack keeps them external.)
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  sdk = new NodeSDK({
    serviceName: serviceName(env),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: ignoredIncoming }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
    // Metrics are prom-client's (GET /metrics) and logs go to stdout: traces only.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return true;
}

/** Sends the spans still buffered and stops the SDK (after the app closed). */
export async function stopTracing(): Promise<void> {
  const s = sdk;
  sdk = undefined;
  await s?.shutdown();
}

/** Trace and span id of the active span, for log lines; undefined outside a traced request. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  if (!ctx || !trace.isSpanContextValid(ctx)) return undefined;
  return { traceId: ctx.traceId, spanId: ctx.spanId };
}
