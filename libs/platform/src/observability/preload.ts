/**
 * `import '@vault/platform/tracing'` as the FIRST import of an app's main.ts: starts
 * OpenTelemetry (when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER is set) before
 * http, express and pg are loaded, so that their instrumentation hooks in. It imports
 * nothing of the rest of the platform on purpose.
 */
import { startTracing } from './tracing';

startTracing();
