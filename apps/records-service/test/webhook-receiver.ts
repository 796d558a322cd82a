import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, verified with the Standard Webhooks reference client. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the envelope is read field by field
  event: Record<string, any>;
  answered: number;
}

/**
 * A webhook receiver as its owner would write it: verifies each request with
 * `standardwebhooks`, answers what the test says, and keeps each webhook-id once
 * (its dedupe) in the order first accepted.
 */
export class Receiver {
  readonly requests: Received[] = [];
  readonly accepted = new Map<string, Received>();
  /** Status answered to the next requests (a function of the request count so far). */
  answer: (n: number) => number = () => 200;
  /**
   * Awaited after a request is verified and taken into the dedupe, before it is answered
   * (a receiver that is slow to answer, or whose answer never reaches the sender).
   */
  beforeAnswer?: (r: Received) => Promise<void>;
  /** Secrets that must each verify every request (by vault id when `secretsByVault` names it). */
  secrets: string[] = [];
  secretsByVault = new Map<string, string[]>();
  /** Location sent with every answer (a redirecting receiver). */
  redirectTo?: string;
  /** Requests that failed verification (answered 401). */
  readonly rejected: string[] = [];
  private server?: Server;

  constructor(
    readonly host: string,
    public port = 0,
  ) {}

  get url(): string {
    return `http://${this.host}:${this.port}/hooks`;
  }

  /** Receivers listening now: closed after the suite even when a test stopped half-way. */
  static readonly open = new Set<Receiver>();

  /** Closes every receiver still listening. */
  static async closeAll(): Promise<void> {
    for (const receiver of [...Receiver.open]) await receiver.close();
  }

  async listen(): Promise<void> {
    Receiver.open.add(this);
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(this.port, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    Receiver.open.delete(this);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }

  /** The ids accepted, in order, for one vault. */
  acceptedOf(vaultId: string): string[] {
    return [...this.accepted.values()].filter((r) => r.event.vaultid === vaultId).map((r) => r.id);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    // Every secret the test names must verify the request on its own.
    const vaultId = String(JSON.parse(body).vaultid);
    try {
      for (const secret of this.secretsByVault.get(vaultId) ?? this.secrets) new Webhook(secret).verify(body, headers);
    } catch (err) {
      this.rejected.push(`${headers['webhook-id']}: ${err}`);
      res.writeHead(401).end();
      return;
    }
    const answered = this.answer(this.requests.length);
    const r: Received = {
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      event: JSON.parse(body),
      answered,
    };
    this.requests.push(r);
    if (answered >= 200 && answered < 300 && !this.accepted.has(r.id)) this.accepted.set(r.id, r);
    await this.beforeAnswer?.(r);
    if (res.destroyed) return;
    const headers302 = this.redirectTo ? { location: this.redirectTo } : {};
    res.writeHead(answered, { 'content-type': 'text/plain', ...headers302 }).end(answered === 500 ? 'x'.repeat(5000) : 'ok');
  }
}

/**
 * Settings of a records-service that delivers webhooks in the test's process to receivers on
 * loopback, fast: relay, dispatcher and retries in fractions of a second.
 */
export const INLINE_DELIVERY_ENV: Record<string, string> = {
  OUTBOX_RELAY_POLL_MS: '100',
  ACTIVITY_LOG_RELAY: 'inline',
  WEBHOOK_DISPATCHER: 'inline',
  WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE_MS: '300,300,600,900,1200,1500,2000,2000,2000,2000',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
  WEBHOOK_RESPONSE_TIMEOUT_MS: '2000',
};
