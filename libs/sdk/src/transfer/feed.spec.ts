import { FeedExpiredError } from '../errors';
import { Transport } from '../policy/transport';
import { followFeed, sseMessages } from './feed';

const encoder = new TextEncoder();
const stream = (chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
const event = (cursor: string, id: string) =>
  `id: ${cursor}\nevent: record.created\ndata: ${JSON.stringify({ id, type: 'record.created' })}\n\n`;

describe('sseMessages', () => {
  it('parses messages split anywhere across chunks, skipping comments', async () => {
    const text = `: heartbeat\n\n${event('c1', 'e1')}${event('c2', 'e2')}`;
    const chunks = [text.slice(0, 7), text.slice(7, 30), text.slice(30)];
    const messages = [];
    for await (const m of sseMessages(stream(chunks))) messages.push(m);
    expect(messages.map((m) => [m.id, m.event])).toEqual([
      ['c1', 'record.created'],
      ['c2', 'record.created'],
    ]);
  });
});

describe('followFeed', () => {
  it('reopens a dropped stream with Last-Event-ID set to the last message received', async () => {
    const asked: (string | null)[] = [];
    const bodies = [[event('c1', 'e1'), event('c2', 'e2')], [event('c3', 'e3')]];
    const transport = new Transport({
      fetch: async (_url, init) => {
        asked.push(new Headers(init.headers).get('last-event-id'));
        return new Response(stream(bodies.shift() ?? []), { headers: { 'content-type': 'text/event-stream' } });
      },
      sleep: async () => undefined,
    });
    const seen = [];
    for await (const m of followFeed(transport, 'https://records-api.localhost/api/v1/vault/vault-id/v/events', {
      lastEventId: 'c0',
    })) {
      seen.push(m.event.id);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(['e1', 'e2', 'e3']);
    expect(asked).toEqual(['c0', 'c2']);
  });

  it('ends with FeedExpiredError when the cursor is no longer retained (410)', async () => {
    const transport = new Transport({
      fetch: async () => new Response(JSON.stringify({ status: 410, code: 'cursor_expired' }), { status: 410 }),
    });
    const feed = followFeed(transport, 'https://records-api.localhost/api/v1/vault/vault-id/v/events', { lastEventId: 'old' });
    await expect(feed.next()).rejects.toBeInstanceOf(FeedExpiredError);
  });

  it('ends quietly when its signal aborts', async () => {
    const stop = new AbortController();
    const transport = new Transport({
      fetch: async () => new Response(stream([event('c1', 'e1')]), { headers: { 'content-type': 'text/event-stream' } }),
      sleep: async () => undefined,
    });
    const seen = [];
    for await (const m of followFeed(transport, 'https://records-api.localhost/x', { signal: stop.signal })) {
      seen.push(m.cursor);
      stop.abort();
    }
    expect(seen).toEqual(['c1']);
  });
});
