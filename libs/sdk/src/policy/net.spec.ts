import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { get as httpGet, Agent as HttpAgent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as tus from 'tus-js-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { localhostLookup } from './net';

/**
 * The `*.localhost` recipes of docs/sdk.md ("Other Node clients and *.localhost"), each run
 * against a server on 127.0.0.1 reached as `records-api.localhost`, a name glibc does not resolve.
 */
describe('localhostLookup: *.localhost for any Node client', () => {
  let server: Server;
  let url: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.headers.host}`);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://records-api.localhost:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers loopback for localhost and its subdomains, in both lookup forms', async () => {
    const one = (host: string, all: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        localhostLookup(host, { all }, (err, address) => (err ? reject(err) : resolve(address))),
      );
    expect(await one('records-api.localhost', false)).toBe('127.0.0.1');
    expect(await one('a.b.localhost.', false)).toBe('127.0.0.1');
    expect(await one('LOCALHOST', true)).toEqual([{ address: '127.0.0.1', family: 4 }]);
    // Any other name goes to the system resolver as before.
    expect(await one('127.0.0.2', false)).toBe('127.0.0.2');
    await expect(one('localhost.example.invalid', false)).rejects.toMatchObject({
      code: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/),
    });
  });

  it('fetch (undici): a dispatcher with the lookup', async () => {
    const dispatcher = new Agent({ connect: { lookup: localhostLookup } });
    const res = await undiciFetch(url, { dispatcher });
    expect(await res.text()).toBe('ok');
    await dispatcher.close();
  });

  it('node:http and node:https: an Agent (or the request) with the lookup', async () => {
    const agent = new HttpAgent({ lookup: localhostLookup } as ConstructorParameters<typeof HttpAgent>[0]);
    const body = await new Promise<string>((resolve, reject) =>
      httpGet(url, { agent }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      }).on('error', reject),
    );
    expect(body).toBe('ok');
    agent.destroy();
  });

  it('tus-js-client: the lookup in the options of its Node HTTP stack', async () => {
    const stack = new tus.DefaultHttpStack({ lookup: localhostLookup } as never);
    const res = await stack.createRequest('HEAD', url).send(null);
    expect(res.getStatus()).toBe(200);
  });

  it('curl: --resolve (curl asks the system resolver too)', async () => {
    const port = (server.address() as AddressInfo).port;
    // (async: this process serves the request curl makes)
    const run = await promisify(execFile)('curl', ['-s', '--resolve', `records-api.localhost:${port}:127.0.0.1`, url]);
    expect(run.stdout).toBe('ok');
    expect(hits.at(-1)).toBe(`GET records-api.localhost:${port}`);
  });
});
