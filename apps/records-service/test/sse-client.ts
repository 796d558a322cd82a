import { request as httpRequest, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { INestApplication } from '@nestjs/common';
import { waitFor } from './activity-log.harness';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CloudEvents are read field by field
type CloudEvent = Record<string, any>;

export interface SseEvent {
  id: string;
  event: string;
  data: CloudEvent;
}

/**
 * A Server-Sent Events client as a syncing app would run it: reads `id:`/`event:`/`data:`
 * blocks as they arrive, keeps comment lines apart, and knows when the server ended.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: IncomingMessage['headers'] = {};
  body = '';
  ended = false;
  private buffer = '';
  private res?: IncomingMessage;

  /** Opens `GET /api/v1{path}` on an app booted in this process, or on a port of 127.0.0.1. */
  static open(target: INestApplication | number, path: string, headers: Record<string, string>): Promise<SseClient> {
    const port = typeof target === 'number' ? target : (target.getHttpServer().address() as AddressInfo).port;
    const c = new SseClient();
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: `/api/v1${path}`, headers }, (res) => {
        c.res = res;
        c.status = res.statusCode ?? 0;
        c.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => c.receive(chunk));
        res.on('end', () => (c.ended = true));
        res.on('close', () => (c.ended = true));
        resolve(c);
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.res?.destroy();
  }

  /** Stops reading (a client that falls behind: the bytes pile up in the socket and the server). */
  pause(): void {
    this.res?.pause();
  }

  resume(): void {
    this.res?.resume();
  }

  async until(cond: (c: SseClient) => boolean, what: string, ms = 20_000): Promise<void> {
    await waitFor(async () => cond(this), ms, what);
  }

  private receive(chunk: string): void {
    this.body += chunk;
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        const at = line.indexOf(': ');
        if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
      }
      if (fields['data'] !== undefined)
        this.events.push({ id: fields['id'], event: fields['event'], data: JSON.parse(fields['data']) });
    }
  }
}
