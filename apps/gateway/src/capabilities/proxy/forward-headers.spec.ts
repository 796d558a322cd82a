import { clientResponseHeaders, upstreamRequestHeaders } from './forward-headers';

describe('upstreamRequestHeaders', () => {
  const ctx = { requestId: 'req-1', clientIp: '203.0.113.9' };

  it('keeps end-to-end headers and the Host, and sets the forwarding headers', () => {
    const out = upstreamRequestHeaders(
      { host: 'user-api.localhost:8443', authorization: 'Bearer t', 'content-type': 'application/json', 'content-length': '2' },
      ctx,
    );
    expect(out).toEqual({
      host: 'user-api.localhost:8443',
      authorization: 'Bearer t',
      'content-type': 'application/json',
      'content-length': '2',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'user-api.localhost:8443',
      'x-request-id': 'req-1',
    });
  });

  it('drops hop-by-hop headers, those named by Connection, and client forwarding headers', () => {
    const out = upstreamRequestHeaders(
      {
        host: 'h',
        connection: 'keep-alive, X-Trace-Hop',
        'x-trace-hop': '1',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        upgrade: 'websocket',
        'proxy-authorization': 'Basic x',
        'x-forwarded-for': '6.6.6.6',
        'x-real-ip': '6.6.6.6',
        forwarded: 'for=6.6.6.6',
        expect: '100-continue',
        'x-request-id': 'forged',
      },
      ctx,
    );
    expect(Object.keys(out).sort()).toEqual(
      ['host', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-request-id'].sort(),
    );
    expect(out['x-forwarded-for']).toBe('203.0.113.9');
    expect(out['x-request-id']).toBe('req-1');
  });

  it('keeps a chunked body chunked', () => {
    expect(upstreamRequestHeaders({ host: 'h', 'transfer-encoding': 'chunked' }, ctx)['transfer-encoding']).toBe('chunked');
  });
});

describe('clientResponseHeaders', () => {
  it('drops hop-by-hop headers, keeps cookies and echoes the request id', () => {
    const out = clientResponseHeaders(
      {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive, x-internal',
        'keep-alive': 'timeout=5',
        'x-internal': 'yes',
        'set-cookie': ['a=1', 'b=2'],
      },
      'req-2',
    );
    expect(out).toEqual({ 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'], 'x-request-id': 'req-2' });
  });
});
