/**
 * Server-Sent Events clients for bench:events, run as their own process (fork, IPC): each
 * client is one node:http(s) GET with `Accept: text/event-stream` held open, parsing the
 * messages as they arrive and noting, per message, the record name the event carries (the
 * benchmark's marker) and when it arrived.
 *
 * Messages from the parent: {cmd: 'connect', targets: [{url, headers, servername?}]} (one
 * client per target) → {connected, failed, statuses}; {cmd: 'take'} → the [marker,
 * receivedAtMs, occurredAtMs] rows since the last take and the messages counted; {cmd: 'close'}.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';

const now = () => performance.timeOrigin + performance.now();
const httpsAgent = new HttpsAgent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
const httpAgent = new HttpAgent({ keepAlive: false, maxSockets: Infinity });
const open = new Set();
let rows = [];
let messages = 0;

/** Opens one stream; resolves with its status once the answer's head arrived. */
function connect({ url, headers, servername }) {
  const u = new URL(url);
  const tls = u.protocol === 'https:';
  return new Promise((resolve) => {
    const req = (tls ? httpsRequest : httpRequest)(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: 'GET',
        headers: { accept: 'text/event-stream', ...headers },
        agent: tls ? httpsAgent : httpAgent,
        ...(tls ? { servername } : {}),
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return resolve(res.statusCode);
        }
        open.add(req);
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk) => {
          const at = now();
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.split('\n').find((l) => l.startsWith('data: '));
            if (!data) continue;
            messages++;
            const event = JSON.parse(data.slice(6));
            rows.push([event.data?.record?.name ?? '', at, Date.parse(event.time ?? '')]);
          }
        });
        res.on('close', () => open.delete(req));
        resolve(200);
      },
    );
    req.on('error', () => resolve(0));
    req.end();
  });
}

process.on('message', async (m) => {
  if (m.cmd === 'connect') {
    const statuses = {};
    // A few at a time, as clients arrive in practice (and so the first ones are not starved).
    for (let i = 0; i < m.targets.length; i += 25) {
      const got = await Promise.all(m.targets.slice(i, i + 25).map(connect));
      for (const s of got) statuses[s] = (statuses[s] ?? 0) + 1;
    }
    process.send({ connected: statuses[200] ?? 0, failed: m.targets.length - (statuses[200] ?? 0), statuses });
  } else if (m.cmd === 'take') {
    process.send({ rows, messages, open: open.size });
    rows = [];
  } else if (m.cmd === 'close') {
    for (const req of open) req.destroy();
    open.clear();
    process.send({ closed: true });
  } else if (m.cmd === 'exit') {
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
