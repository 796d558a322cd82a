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
 *   With REF_DATABASE_URL set, the process is instead the **durable floor** of the webhooks:
 *   the same consumer, queues and POSTs, plus the two things the platform's semantics add
 *   before a POST (docs/webhooks.md): the resource read now (the events' records, one
 *   statement per batch) and a delivery row stored before the event is acknowledged (one
 *   INSERT per batch into a table of its own), batches stored one after the other as they
 *   come; a delivered row is marked (an UPDATE each, not awaited by the vault's next POST).
 *   It reads no subscriptions, no files and no catalogue, claims nothing and keeps no
 *   outcome history: a lower bound of any dispatcher with those semantics, on this machine.
 * - sse: a node:http server; GET /vault/<id>/events streams, as Server-Sent Events, every
 *   event of that vault from an ordered consumer (new events only) to every client of the
 *   vault. {cmd: 'sse'} → {port}.
 *
 * Env: NATS_URL, STREAM, SUBJECT_PREFIX (the namespace's `ns.`), RECEIVER_URL, REF_SECRET,
 * REF_CONCURRENCY (10), REF_DATABASE_URL (the records database: the durable floor),
 * REF_DATABASE_APP (its connections' application_name).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';

const { NATS_URL, STREAM, SUBJECT_PREFIX = '', RECEIVER_URL, REF_SECRET, REF_DATABASE_URL, REF_DATABASE_APP } = process.env;
const CONCURRENCY = Number(process.env.REF_CONCURRENCY ?? 10);
const DURABLE = `bench_reference_${process.pid}`;
const pg = createRequire(import.meta.url)('pg');
const db = REF_DATABASE_URL
  ? // connections kept for the whole run: a backend that ends mid-phase would leave the CPU figures
    new pg.Pool({
      connectionString: REF_DATABASE_URL,
      application_name: REF_DATABASE_APP,
      max: CONCURRENCY + 2,
      idleTimeoutMillis: 0,
    })
  : null;
const FLOOR_TABLE = `bench_floor_deliveries_${process.pid}`;
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

/** The CloudEvents body of an event with `data`. */
const cloudEvent = (id, payload, data) =>
  JSON.stringify({
    specversion: '1.0',
    id,
    source: `/vault/vault-id/${payload.vault.id}`,
    type: 'record.updated',
    time: payload.occurredAt,
    datacontenttype: 'application/json',
    vaultid: payload.vault.id,
    data,
  });

const eventId = (m) => m.headers?.get('Nats-Msg-Id') || `${m.seq}`;

/** An item of a vault's queue: a message (acknowledged once delivered), or a stored delivery row (marked). */
async function post(item) {
  if (item.row) {
    await send(item.row.eventId, item.row.body);
    db.query(`UPDATE ${FLOOR_TABLE} SET delivered_at = now() WHERE id = $1`, [item.row.id]).catch(() => undefined);
    return;
  }
  const m = item;
  const payload = JSON.parse(decoder.decode(m.data));
  await send(eventId(m), cloudEvent(eventId(m), payload, payload));
  m.ack();
}

/** POSTs until the receiver answers 2xx (every 200 ms). */
async function send(id, body) {
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

function enqueue(vaultId, item) {
  if (!queues.has(vaultId)) queues.set(vaultId, { busy: false, items: [] });
  queues.get(vaultId).items.push(item);
  pump();
}

/** Messages the durable floor has not stored yet; the batch being stored (a promise), if any. */
const incoming = [];
let storing = null;
let stopping = false;

/**
 * The durable floor's store: the batch's records read now (one statement), one delivery row
 * per event stored (one INSERT; an event stored already adds none and is not sent again), the
 * messages acknowledged, the stored rows queued for their vaults. A batch that fails is stored
 * again after 200 ms, before any later one (the order per vault is kept).
 */
function storeBatches() {
  storing ??= (async () => {
    while (incoming.length > 0 && !stopping) {
      const batch = incoming.slice(0, 200);
      try {
        await storeBatch(batch);
        incoming.splice(0, batch.length);
      } catch (err) {
        console.error(`durable floor: ${err.message}`);
        await sleep(200);
      }
    }
    storing = null;
  })();
  return storing;
}

async function storeBatch(messages) {
  const batch = messages.map((m) => ({ m, id: eventId(m), payload: JSON.parse(decoder.decode(m.data)) }));
  const { rows: records } = await db.query('SELECT * FROM records WHERE id = ANY($1::uuid[])', [
    batch.map((e) => e.payload.record.id),
  ]);
  const byId = new Map(records.map((r) => [r.id, r]));
  const rows = batch.map((e) => ({
    id: randomUUID(),
    vaultId: e.payload.vault.id,
    eventId: e.id,
    body: cloudEvent(e.id, e.payload, byId.get(e.payload.record.id) ?? e.payload),
  }));
  const { rows: stored } = await db.query(
    `INSERT INTO ${FLOOR_TABLE} (id, vault_id, event_id, body)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) ON CONFLICT (event_id) DO NOTHING RETURNING id`,
    [rows.map((r) => r.id), rows.map((r) => r.vaultId), rows.map((r) => r.eventId), rows.map((r) => r.body)],
  );
  for (const e of batch) e.m.ack();
  const ids = new Set(stored.map((r) => r.id));
  for (const row of rows) if (ids.has(row.id)) enqueue(row.vaultId, { row });
}

async function runWebhooks() {
  if (db) {
    await db.query(
      `CREATE TABLE ${FLOOR_TABLE} (id uuid PRIMARY KEY, vault_id uuid NOT NULL, event_id text NOT NULL UNIQUE,
         body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), delivered_at timestamptz)`,
    );
  }
  const consumer = await js.consumers.get(STREAM, DURABLE);
  const messages = await consumer.consume({ max_messages: 1000 });
  for await (const m of messages) {
    if (db) {
      incoming.push(m);
      void storeBatches();
    } else {
      enqueue(JSON.parse(decoder.decode(m.data)).vault.id, m);
    }
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
    runWebhooks().catch((err) => {
      console.error(`reference: ${err.message}`);
      process.exit(1);
    });
    process.send({ started: true });
  } else if (m.cmd === 'sse') {
    process.send({ port: await startSse() });
  } else if (m.cmd === 'exit') {
    stopping = true;
    await storing;
    await jsm.consumers.delete(STREAM, DURABLE).catch(() => undefined);
    await nc.close();
    await db?.query(`DROP TABLE IF EXISTS ${FLOOR_TABLE}`).catch(() => undefined);
    await db?.end();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
