import { VaultNetworkError } from '../errors';
import { Transport, type RetryEvent, type TransportOptions } from './transport';

type Step = Response | Error | ((init: RequestInit) => Response | Promise<Response>);

/** A fetch that plays `steps` in order and records what each attempt sent. */
function scripted(steps: Step[]) {
  const sent: { url: string; method: string; headers: Headers; body: string | undefined }[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    const body = init.body === undefined ? undefined : Buffer.from(init.body as Uint8Array).toString();
    sent.push({ url, method: String(init.method), headers, body });
    const step = steps.shift();
    if (!step) throw new Error('no more steps');
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(init) : step;
  };
  return { fetch, sent };
}

function make(steps: Step[], extra: Partial<TransportOptions> = {}) {
  const { fetch, sent } = scripted(steps);
  const waits: number[] = [];
  const retries: RetryEvent[] = [];
  const transport = new Transport({
    fetch,
    random: () => 0.5,
    now: () => 1_000_000,
    sleep: async (ms) => void waits.push(ms),
    onRetry: (e) => retries.push(e),
    ...extra,
  });
  return { transport, sent, waits, retries };
}

const status = (code: number, headers: Record<string, string> = {}, body = '') =>
  new Response(code === 204 ? null : body, { status: code, headers });
const problem = (code: number, c: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ status: code, code: c }), {
    status: code,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
const dropped = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
const URL_ = 'https://records-api.localhost:8443/api/v1/vault';

describe('Transport', () => {
  it('makes one Idempotency-Key per logical POST and sends it on every retry', async () => {
    const { transport, sent } = make([dropped(), status(503), status(201, {}, '{"id":"v1"}')]);
    const res = await transport.send(URL_, { method: 'POST', body: '{"name":"a"}' });
    expect(res.status).toBe(201);
    const keys = sent.map((s) => s.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(sent.map((s) => s.body)).toEqual(['{"name":"a"}', '{"name":"a"}', '{"name":"a"}']);
  });

  it('gives two logical POSTs two keys', async () => {
    const { transport, sent } = make([status(201), status(201)]);
    await transport.send(URL_, { method: 'POST' });
    await transport.send(URL_, { method: 'POST' });
    expect(sent[0].headers.get('idempotency-key')).not.toBe(sent[1].headers.get('idempotency-key'));
  });

  it("keeps the caller's own key, from a header or the option", async () => {
    const { transport, sent } = make([status(503), status(201), status(201)]);
    await transport.send(URL_, { method: 'POST', headers: { 'Idempotency-Key': 'mine-1' } });
    await transport.send(URL_, { method: 'POST', idempotencyKey: 'mine-2' });
    expect(sent.map((s) => s.headers.get('idempotency-key'))).toEqual(['mine-1', 'mine-1', 'mine-2']);
  });

  it('never retries a POST without a key', async () => {
    const { transport, sent } = make([status(503)]);
    const res = await transport.send(URL_, { method: 'POST', idempotencyKey: false });
    expect(res.status).toBe(503);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.has('idempotency-key')).toBe(false);
    const dropping = make([dropped()]);
    await expect(
      dropping.transport.send(`${URL_}/vault-id/v/webhooks/webhook-id/w/rotate-secret`, { method: 'POST' }),
    ).rejects.toBeInstanceOf(VaultNetworkError);
    expect(dropping.sent).toHaveLength(1);
  });

  it('waits as long as Retry-After says (seconds or a date)', async () => {
    const date = new Date(1_000_000 + 7000).toUTCString();
    const { transport, waits, retries } = make([
      status(429, { 'retry-after': '3' }),
      status(503, { 'retry-after': date }),
      status(200),
    ]);
    expect((await transport.send(URL_, { method: 'GET' })).status).toBe(200);
    expect(waits).toEqual([3000, 7000]);
    expect(retries.map((r) => [r.status, r.told])).toEqual([
      [429, true],
      [503, true],
    ]);
  });

  it('waits for the RateLimit reset when the budget is spent and no Retry-After is given', async () => {
    const { transport, waits } = make([status(429, { ratelimit: '"caller";r=0;t=12' }), status(200)]);
    await transport.send(URL_, { method: 'GET' });
    expect(waits[0]).toBe(12_000);
  });

  it('holds the next request while a successful answer says the budget is spent', async () => {
    const { transport, waits } = make([status(200, { ratelimit: '"caller";r=0;t=5' }), status(200)]);
    await transport.send(URL_, { method: 'GET' });
    expect(waits).toEqual([]);
    await transport.send(URL_, { method: 'GET' });
    expect(waits).toEqual([5000]);
  });

  it('backs off with full jitter when the server names no wait', async () => {
    const { transport, waits } = make([status(502), status(503), status(504), status(200)], { random: () => 0.999 });
    await transport.send(URL_, { method: 'GET' });
    // uniform in [0, min(cap, 200·2^retry)): just under 200, 400, 800 with random → 1
    expect(waits).toEqual([199, 399, 799]);
  });

  it('answers the last failure once the attempts are spent', async () => {
    const { transport, sent } = make([status(503), status(503), status(503), status(503)]);
    expect((await transport.send(URL_, { method: 'GET' })).status).toBe(503);
    expect(sent).toHaveLength(4);
  });

  it('returns a 429 whose Retry-After is longer than it may wait', async () => {
    const { transport, sent } = make([status(429, { 'retry-after': '3600' })]);
    expect((await transport.send(URL_, { method: 'GET' })).status).toBe(429);
    expect(sent).toHaveLength(1);
  });

  it('retries 409 only for idempotency_key_in_flight, and no other 4xx', async () => {
    const inFlight = make([problem(409, 'idempotency_key_in_flight', { 'retry-after': '1' }), status(201)]);
    expect((await inFlight.transport.send(URL_, { method: 'POST' })).status).toBe(201);
    expect(inFlight.waits).toEqual([1000]);
    const taken = make([problem(409, 'email_username_taken')]);
    expect((await taken.transport.send(URL_, { method: 'POST' })).status).toBe(409);
    expect(taken.sent).toHaveLength(1);
    const bad = make([problem(400, 'validation_failed')]);
    expect((await bad.transport.send(URL_, { method: 'GET' })).status).toBe(400);
  });

  it('sends the token and asks for another once on a 401', async () => {
    let calls = 0;
    const tokens = {
      getToken: jest.fn(async () => (++calls > 1 ? 'fresh' : 'stale')),
      invalidate: jest.fn(),
    };
    const { transport, sent } = make([problem(401, 'unauthorized'), status(200)], { tokens });
    expect((await transport.send(URL_, { method: 'GET' })).status).toBe(200);
    expect(sent.map((s) => s.headers.get('authorization'))).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(tokens.invalidate).toHaveBeenCalledWith('stale');
    const noAuth = make([status(200)], { tokens });
    await noAuth.transport.send(URL_, { method: 'POST', auth: false });
    expect(noAuth.sent[0].headers.has('authorization')).toBe(false);
  });

  it('answers a step-up challenge (RFC 9470) as it is: a refreshed token keeps its old sign-in', async () => {
    const tokens = { getToken: jest.fn(async () => 'token'), invalidate: jest.fn() };
    const challenge = 'Bearer realm="vault", error="insufficient_user_authentication", error_description="sign in", max_age=600';
    const { transport, sent } = make(
      [problem(401, 'reauthentication_required', { 'www-authenticate': challenge }), status(200)],
      {
        tokens,
      },
    );
    const res = await transport.send(URL_, { method: 'GET' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
    expect(sent).toHaveLength(1);
    expect(tokens.invalidate).not.toHaveBeenCalled();
    // unquoted, or after another challenge, alike; another error still gets its renewal
    for (const header of [
      'Bearer error=insufficient_user_authentication, max_age=60',
      'Basic realm="x", Bearer error="insufficient_user_authentication"',
    ]) {
      const unquoted = make([problem(401, 'reauthentication_required', { 'www-authenticate': header })], { tokens });
      expect((await unquoted.transport.send(URL_, { method: 'GET' })).status).toBe(401);
      expect(unquoted.sent).toHaveLength(1);
    }
    const other = make(
      [
        problem(401, 'unauthorized', {
          'www-authenticate': 'Bearer error="invalid_token", error_description="not insufficient_user_authentication"',
        }),
        status(200),
      ],
      { tokens },
    );
    expect((await other.transport.send(URL_, { method: 'GET' })).status).toBe(200);
    expect(other.sent).toHaveLength(2);
  });

  it("stops at once when the caller's signal aborts, also while waiting", async () => {
    const controller = new AbortController();
    const { transport, sent } = make([status(503, { 'retry-after': '1' })], {
      sleep: (_ms, signal) => new Promise((_r, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    });
    const pending = transport.send(URL_, { method: 'GET', signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
    expect(sent).toHaveLength(1);
  });

  it('counts an attempt without answer headers in time as a failure and retries it', async () => {
    const hang = (init: RequestInit) =>
      new Promise<Response>((_r, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const { transport, retries } = make([hang, status(200)], { timeoutMs: 20 });
    expect((await transport.send(URL_, { method: 'GET' })).status).toBe(200);
    expect(String(retries[0].error)).toMatch(/no answer within 20 ms/);
  });

  it('throws VaultNetworkError when no attempt got an answer', async () => {
    const { transport, sent } = make([dropped(), dropped(), dropped(), dropped()]);
    await expect(transport.send(URL_, { method: 'PUT' })).rejects.toThrow(/no answer after 4 attempt\(s\): ECONNRESET/);
    expect(sent).toHaveLength(4);
  });
});
