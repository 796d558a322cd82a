/**
 * The floor for bench:events, run as its own process (fork, IPC): the same vault events
 * taken straight from the JetStream stream the platform publishes to, without the
 * platform's fan-out, delivery table, dispatcher or change-feed table.
 *
 * - webhooks: a durable pull consumer (new events only) of the record updates; each event
 *   is signed with `standardwebhooks` (one secret) and POSTed to RECEIVER_URL as a
 *   CloudEvents body whose data is the event's payload, one request in flight per vault
 *   (order kept per vault) and at most REF_CONCURRENCY in all; acknowledged after 2xx,
 *   retried every 200 ms otherwise (about 3,000 events at most are held in memory; the
 *   rest wait in the stream). {cmd: 'webhooks'} starts it.
 * - sse: a node:http server; GET /vault/<id>/events streams, as Server-Sent Events, every
 *   event of that vault from an ordered consumer (new events only) to every client of the
 *   vault. {cmd: 'sse'} → {port}.
 *
 * Env: NATS_URL, STREAM, SUBJECT_PREFIX (the namespace's `ns.`), RECEIVER_URL, REF_SECRET,
 * REF_CONCURRENCY (10).
 */
import { createServer } from 'node:http';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';

const { NATS_URL, STREAM, SUBJECT_PREFIX = '', RECEIVER_URL, REF_SECRET } = process.env;
const CONCURRENCY = Number(process.env.REF_CONCURRENCY ?? 10);
const DURABLE = `bench_reference_${process.pid}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const nc = await connect({ servers: NATS_URL });
const js = jetstream(nc);
const jsm = await jetstreamManager(nc);
await jsm.consumers.add(STREAM, {
  durable_name: DURABLE,
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.New,
  filter_subject: `${SUBJECT_PREFIX}vault.record.updated.v1`,
  max_ack_pending: 20_000,
  ack_wait: 3_600_000_000_000,
});

const decoder = new TextDecoder();
const wh = new Webhook(REF_SECRET);
const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 60_000 });

/** One vault's events in order; one in flight per vault, CONCURRENCY in all. */
const queues = new Map();
let inFlight = 0;
const waiting = [];

async function post(m) {
  const payload = JSON.parse(decoder.decode(m.data));
  const id = m.headers?.get('Nats-Msg-Id') || `${m.seq}`;
  const body = JSON.stringify({
    specversion: '1.0',
    id,
    source: `/vault/vault-id/${payload.vault.id}`,
    type: 'record.updated',
    time: payload.occurredAt,
    datacontenttype: 'application/json',
    vaultid: payload.vault.id,
    data: payload,
  });
  for (;;) {
    const date = new Date();
    const signature = wh.sign(id, date, body);
    try {
      const res = await request(RECEIVER_URL, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) break;
    } catch {
      // the receiver is down: try again
    }
    await sleep(200);
  }
  m.ack();
}

function pump() {
  while (inFlight < CONCURRENCY) {
    const ready = [...queues.entries()].find(([, q]) => !q.busy && q.items.length > 0);
    if (!ready) break;
    const [, q] = ready;
    q.busy = true;
    inFlight++;
    post(q.items.shift()).finally(() => {
      q.busy = false;
      inFlight--;
      pump();
      while (inFlight < CONCURRENCY && waiting.length) waiting.shift()();
    });
  }
}

async function runWebhooks() {
  const consumer = await js.consumers.get(STREAM, DURABLE);
  const messages = await consumer.consume({ max_messages: 1000 });
  for await (const m of messages) {
    const vaultId = JSON.parse(decoder.decode(m.data)).vault.id;
    if (!queues.has(vaultId)) queues.set(vaultId, { busy: false, items: [] });
    queues.get(vaultId).items.push(m);
    pump();
    // Hold the pull while every slot is busy and the queues are long (no unbounded buffer).
    while (inFlight >= CONCURRENCY && [...queues.values()].reduce((n, q) => n + q.items.length, 0) > 2000) {
      await new Promise((r) => waiting.push(r));
    }
  }
}

/** SSE clients by vault id. */
const clients = new Map();

async function startSse() {
  const server = createServer((req, res) => {
    const match = /^\/vault\/([^/]+)\/events$/.exec(req.url ?? '');
    if (!match) return res.writeHead(404).end();
    const vaultId = match[1];
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' });
    res.write(': reference\n\n');
    if (!clients.has(vaultId)) clients.set(vaultId, new Set());
    clients.get(vaultId).add(res);
    req.on('close', () => clients.get(vaultId).delete(res));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const consumer = await js.consumers.get(STREAM, {
    filter_subjects: `${SUBJECT_PREFIX}vault.>`,
    deliver_policy: DeliverPolicy.New,
  });
  const feed = await consumer.consume();
  (async () => {
    for await (const m of feed) {
      const text = decoder.decode(m.data);
      const payload = JSON.parse(text);
      const set = clients.get(payload.vault.id);
      if (!set) continue;
      const type = m.subject.slice(SUBJECT_PREFIX.length);
      const message = `id: ${m.seq}\nevent: ${type}\ndata: ${JSON.stringify({ id: m.headers?.get('Nats-Msg-Id'), type, vaultid: payload.vault.id, data: payload })}\n\n`;
      for (const res of set) res.write(message);
    }
  })();
  return server.address().port;
}

process.on('message', async (m) => {
  if (m.cmd === 'webhooks') {
    void runWebhooks();
    process.send({ started: true });
  } else if (m.cmd === 'sse') {
    process.send({ port: await startSse() });
  } else if (m.cmd === 'exit') {
    await jsm.consumers.delete(STREAM, DURABLE).catch(() => undefined);
    await nc.close();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
