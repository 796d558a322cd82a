import type { IncomingMessage } from 'node:http';
import { framingRefusal, unsupportedVersion } from './request-framing';

/** A parsed request as far as framingRefusal reads it: the version and the header lines (name, value, ...). */
function request(version: string, rawHeaders: string[]): IncomingMessage {
  const headersDistinct: Record<string, string[]> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    (headersDistinct[rawHeaders[i].toLowerCase()] ??= []).push(rawHeaders[i + 1]);
  }
  const [httpVersionMajor, httpVersionMinor] = version.split('.').map(Number);
  return { httpVersion: version, httpVersionMajor, httpVersionMinor, rawHeaders, headersDistinct } as unknown as IncomingMessage;
}

describe('request framing', () => {
  it('names the versions other than HTTP/1.0 and HTTP/1.1 as unsupported, not garbage', () => {
    expect(['HTTP/2', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/3.0', 'HTTP/1.2'].filter(unsupportedVersion)).toHaveLength(5);
    expect(['HTTP/1.1', 'HTTP/1.0', 'HTTP/1.x', 'HTTP/22', 'http/2', ''].filter(unsupportedVersion)).toEqual([]);
  });

  it('lets through one Host and at most one chunked coding, in any case', () => {
    expect(framingRefusal(request('1.1', ['Host', 'a']))).toBeUndefined();
    expect(framingRefusal(request('1.0', ['Host', 'a', 'Transfer-Encoding', ' Chunked ']))).toBeUndefined();
  });

  it('refuses two Host headers (400), other codings (501), other versions (505)', () => {
    expect(framingRefusal(request('1.1', ['Host', 'a', 'host', 'a']))).toMatchObject({ status: 400 });
    expect(framingRefusal(request('1.1', ['Host', 'a', 'Transfer-Encoding', 'gzip, chunked']))?.entry.status).toBe(501);
    expect(
      framingRefusal(request('1.1', ['Host', 'a', 'Transfer-Encoding', 'chunked', 'Transfer-Encoding', 'chunked']))?.entry.status,
    ).toBe(501);
    expect(framingRefusal(request('2.0', ['Host', 'a']))?.entry.status).toBe(505);
  });
});
