import { createHash } from 'node:crypto';
import { IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { PeerCertificate, TLSSocket } from 'node:tls';
import { Readable } from 'node:stream';

export interface CallOptions {
  /** Host header (and TLS server name). */
  host: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
  /** Trusted certificate; the server's certificate must chain to it and cover `host`. */
  ca?: string;
}

export interface CallResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  bytes: number;
  sha256: string;
  json<T = Record<string, unknown>>(): T;
  peerCertificate?: PeerCertificate;
}

/** One request to 127.0.0.1:port over HTTPS (or plain HTTP), without keep-alive. */
export function call(port: number, o: CallOptions, plain = false): Promise<CallResult> {
  const options = {
    host: '127.0.0.1',
    port,
    method: o.method ?? 'GET',
    path: o.path ?? '/',
    headers: { host: o.host, ...o.headers },
    agent: false as const,
    ...(plain ? {} : { servername: o.host.split(':')[0], ca: o.ca, rejectUnauthorized: o.ca !== undefined }),
  };
  return new Promise((resolve, reject) => {
    const req = (plain ? httpRequest : httpsRequest)(options, (res) => {
      const hash = createHash('sha256');
      const chunks: Buffer[] = [];
      let bytes = 0;
      const keep = (res.headers['content-type'] ?? '').includes('json');
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        hash.update(c);
        if (keep) chunks.push(c);
      });
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const socket = res.socket as TLSSocket | null;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          bytes,
          sha256: hash.digest('hex'),
          json: <T>() => JSON.parse(body.toString('utf8')) as T,
          peerCertificate: plain || !socket?.getPeerCertificate ? undefined : socket.getPeerCertificate(),
        });
      });
    });
    req.on('error', reject);
    // Small writes leave at once (Nagle off), so timings measure the gateway, not this client.
    req.on('socket', (socket) => socket.setNoDelay(true));
    if (o.body instanceof Readable) o.body.pipe(req);
    else req.end(o.body);
  });
}

/** A deterministic stream of `total` bytes, and the SHA-256 it will have. */
export function generatedBody(total: number, chunkSize = 64 * 1024): { stream: Readable; sha256: string } {
  const block = Buffer.alloc(chunkSize);
  for (let i = 0; i < chunkSize; i++) block[i] = (i * 31 + 7) & 0xff;
  const hash = createHash('sha256');
  for (let sent = 0; sent < total; sent += chunkSize) hash.update(block.subarray(0, Math.min(chunkSize, total - sent)));
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(chunkSize, total - sent);
      sent += n;
      this.push(block.subarray(0, n));
    },
  });
  return { stream, sha256: hash.digest('hex') };
}
