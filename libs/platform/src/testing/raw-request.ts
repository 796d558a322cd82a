import * as http from 'node:http';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): Record<string, unknown>;
}

/**
 * One HTTP request with exactly the headers given (no content type added, none
 * guessed): Content-Length is set from the body unless Transfer-Encoding is given.
 * Errors after the answer arrived (a server closing early) are ignored.
 */
export function rawRequest(
  base: URL | string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<RawReply> {
  const url = new URL(path, base);
  const all: Record<string, string> = { ...headers };
  if (body !== undefined && all['transfer-encoding'] === undefined && all['content-length'] === undefined) {
    all['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: all, agent: false },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** An object nested `levels` deep ({a: {a: ... 1}}), built without recursion. */
export function nested(levels: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value as Record<string, unknown>;
}

/** The JSON text of nested(levels), written without JSON.stringify (which recurses). */
export function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/**
 * Checks a reply is the documented problem body: status, code, problem+json, and
 * the request id of the x-request-id header (throws naming what differs). Returns
 * the body for further checks.
 */
export function expectProblemReply(res: RawReply, status: number, code: string): Record<string, unknown> {
  const body = res.json();
  const seen = {
    status: res.status,
    code: body['code'],
    problemJson: String(res.headers['content-type']).startsWith('application/problem+json'),
    requestIdMatches: typeof body['requestId'] === 'string' && body['requestId'] === res.headers['x-request-id'],
  };
  const wanted = { status, code, problemJson: true, requestIdMatches: true };
  if (JSON.stringify(seen) !== JSON.stringify(wanted)) {
    throw new Error(`expected a problem reply ${JSON.stringify(wanted)}, got ${JSON.stringify(seen)}: ${res.text.slice(0, 500)}`);
  }
  return body;
}
