import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { assertDocumented } from './openapi-validator';

export type Module = 'developer' | 'user' | 'records';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The answer's bytes as received (binary bodies). */
  bytes?: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  host?: string;
  raw?: Buffer | string;
  /** The gateway's HTTPS port, when not the shared platform's (a suite's own platform). */
  port?: number;
  /**
   * Skip the check of the answer against the OpenAPI document: only for requests that are
   * not API calls at all (framing the gateway refuses before any route is known).
   */
  undocumented?: boolean;
}

/** A variable the global setup sets; its absence means the suite was started wrongly. */
export function setupValue(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set: run the suite through its global setup`);
  return value;
}

const port = () => Number(process.env['E2E_GATEWAY_PORT']);
export const domain = () => process.env['E2E_DOMAIN'] ?? 'localhost';
export const hostOf = (m: Module) => `${m}-api.${domain()}`;

function parse(text: string, type: string | undefined) {
  if (type && /json/.test(type) && text) return JSON.parse(text);
  return text;
}

/** Calls the platform through the gateway over HTTPS, with the module's Host header. */
export async function call(module: Module, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  let payload: Buffer | undefined;
  if (o.body !== undefined) {
    payload = Buffer.from(JSON.stringify(o.body));
    headers['content-type'] ??= 'application/json';
  } else if (o.form) {
    payload = Buffer.from(new URLSearchParams(o.form).toString());
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (o.raw !== undefined) {
    payload = Buffer.from(o.raw);
  }
  if (payload) headers['content-length'] = String(payload.length);
  if (o.token) headers['authorization'] = `Bearer ${o.token}`;
  const gatewayPort = o.port ?? port();
  headers['host'] = o.host ?? `${hostOf(module)}:${gatewayPort}`;
  const fullPath = path.startsWith('/api/') || path.startsWith('/health') ? path : `/api/v1${path}`;
  const reply = await send(
    httpsRequest,
    { port: gatewayPort, method, path: fullPath, headers, rejectUnauthorized: false },
    payload,
  );
  // Every answer must be what the OpenAPI document says (support/openapi-validator.ts).
  const target = moduleOfHost(headers['host']);
  if (target && !o.undocumented) assertDocumented({ module: target, method, path: fullPath, requestHeaders: headers, ...reply });
  return reply;
}

/** The module a Host header names (`records-api.<domain>:port`), if any. */
function moduleOfHost(host: string): Module | undefined {
  const m = /^(developer|user|records)-api\.([^:]+)(:\d+)?$/i.exec(host);
  return m && m[2].toLowerCase() === domain().toLowerCase() ? (m[1].toLowerCase() as Module) : undefined;
}

/** Plain HTTP to the gateway's refusing port. */
export function callPlainHttp(module: Module, method: string, path: string): Promise<Reply> {
  return send(httpRequest, {
    port: Number(process.env['E2E_HTTP_PORT']),
    method,
    path,
    headers: { host: `${hostOf(module)}:${process.env['E2E_HTTP_PORT']}` },
  });
}

function send(fn: typeof httpsRequest | typeof httpRequest, opts: Record<string, unknown>, payload?: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = fn({ host: '127.0.0.1', ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          headers: res.headers,
          text,
          body: parse(text, res.headers['content-type']),
        });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Obtains a token through the gateway for a bootstrap user. */
export async function tokenFor(
  tenant: string,
  clientId: string,
  secret: string,
  username: string,
  password: string,
): Promise<string> {
  const res = await call('developer', 'POST', `/tenant/tenant-id/${tenant}/applications/client-id/${clientId}/auth`, {
    body: { clientSecret: secret, username, password },
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

export const ann = () => tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'ann@alpha.example', 'ann-password-1');
export const bob = () => tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'bob@alpha.example', 'bob-password-1');
export const cy = () => tokenFor('beta', 'beta-app', 'beta-secret', 'cy@beta.example', 'cy-password-1');
