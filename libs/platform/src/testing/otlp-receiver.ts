import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** One span as exported, with the service.name of its resource. */
export interface ReceivedSpan {
  service: string;
  /** Instrumentation scope (`@opentelemetry/instrumentation-pg`...). */
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: OtlpAttribute[];
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

/** Ids are hex in OTLP/JSON; base64 (protobuf-style JSON) is accepted too. */
const hexId = (id: string | undefined): string =>
  !id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

const valueOf = (v: OtlpValue): unknown => v.stringValue ?? v.intValue ?? v.boolValue;

/**
 * A tiny OTLP/HTTP trace receiver (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): accepts
 * POST /v1/traces and keeps every span it was sent.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        try {
          receiver.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Waits until a span matching `pred` arrived (the exporters send in batches). */
  async waitFor(pred: (s: ReceivedSpan) => boolean, timeoutMs = 15_000): Promise<ReceivedSpan> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(pred);
      if (found) return found;
      if (Date.now() > until)
        throw new Error(`no such span; received: ${this.spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  private take(body: OtlpRequest): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = String(valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}) ?? '');
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            service,
            scope: ss.scope?.name ?? '',
            name: s.name,
            kind: s.kind,
            traceId: hexId(s.traceId),
            spanId: hexId(s.spanId),
            parentSpanId: hexId(s.parentSpanId),
            attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
          });
        }
      }
    }
  }
}
