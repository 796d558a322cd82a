/**
 * A webhook receiver for bench:events, run as its own process (fork, IPC): a plain
 * node:http server that verifies every request with `standardwebhooks` (the secret of the
 * event's vault), answers 204, and keeps each webhook-id once (its dedupe) with the time
 * it first arrived.
 *
 * Messages from the parent: {cmd: 'secrets', secrets: {vaultId: secret}} → {ok};
 * {cmd: 'listen', port?} → {port};
 * {cmd: 'close'} (the receiver goes down: connections refused); {cmd: 'take'} → the
 * accepted events since the last take, as [webhookId, receivedAtMs] rows, and the
 * counts of requests, duplicates and rejections.
 */
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

const now = () => performance.timeOrigin + performance.now();
const verifiers = new Map();
const seen = new Set();
let rows = [];
let requests = 0;
let duplicates = 0;
let rejected = 0;
let server;

function handle(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    requests++;
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = JSON.parse(body);
      const wh = verifiers.get(event.vaultid);
      if (!wh) throw new Error(`no secret for vault ${event.vaultid}`);
      wh.verify(body, req.headers);
    } catch {
      rejected++;
      res.writeHead(400).end();
      return;
    }
    const id = req.headers['webhook-id'];
    if (seen.has(id)) duplicates++;
    else {
      seen.add(id);
      rows.push([id, at]);
    }
    res.writeHead(204).end();
  });
}

process.on('message', async (m) => {
  if (m.cmd === 'secrets') {
    for (const [vaultId, secret] of Object.entries(m.secrets)) verifiers.set(vaultId, new Webhook(secret));
    process.send({ ok: true });
  } else if (m.cmd === 'listen') {
    server = createServer({ keepAliveTimeout: 60_000 }, handle);
    await new Promise((r) => server.listen(m.port ?? 0, '127.0.0.1', r));
    process.send({ port: server.address().port });
  } else if (m.cmd === 'close') {
    const s = server;
    server = undefined;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
    process.send({ closed: true });
  } else if (m.cmd === 'take') {
    process.send({ rows, requests, duplicates, rejected });
    rows = [];
  } else if (m.cmd === 'exit') {
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
