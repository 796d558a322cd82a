import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { isHealthPath, routeRequests } from './edge-listener';

describe('isHealthPath', () => {
  it('matches the two health paths, with or without a query', () => {
    expect(isHealthPath('/health/live')).toBe(true);
    expect(isHealthPath('/health/ready?x=1')).toBe(true);
    for (const p of [undefined, '/', '/health', '/health/live/x', '/api/v1/health/live', '/health/readyz']) {
      expect(isHealthPath(p)).toBe(false);
    }
  });
});

describe('routeRequests', () => {
  it('sends health to the original listener and everything else to the proxy', () => {
    const seen: string[] = [];
    const server = createServer((req) => seen.push(`nest ${req.url}`));
    routeRequests(server, (req) => seen.push(`proxy ${req.url}`));
    const set: Record<string, Record<string, unknown>> = {};
    const emit = (url: string) => {
      const headers: Record<string, unknown> = (set[url] = {});
      const res = { setHeader: (name: string, value: unknown) => (headers[name] = value), once: () => res };
      const req = { url, httpVersionMajor: 1, headers: {}, headersDistinct: {} };
      server.emit('request', req as unknown as IncomingMessage, res as unknown as ServerResponse);
    };
    emit('/health/live');
    emit('/api/v1/accounts');
    expect(seen).toEqual(['nest /health/live', 'proxy /api/v1/accounts']);
    // Health gets the security headers here; the proxy sets them on what it answers.
    expect(set['/health/live']).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    expect(set['/api/v1/accounts']).toEqual({});
    expect(server.listenerCount('request')).toBe(1);
  });
});
