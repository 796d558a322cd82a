/**
 * The ceiling of the machine for TLS over loopback: a Node TLS client sends a file's
 * worth of bytes to a Node TLS server in another process that only counts them (the
 * gateway's certificate, default ciphers). No HTTP, no proxying, no storage: an
 * upload through the gateway cannot be faster than this, since it pays the same
 * encryption and decryption plus everything else on the same cores.
 *
 * As a module: `tlsPipe({ certFile, keyFile, bytes })` resolves to
 * `{ MiBs, cipher, protocol }`. Run as a script with `serve <cert> <key> <bytes>` it is
 * the server half (prints its port, then the count once all bytes arrived).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:tls';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const CHUNK = Buffer.alloc(1 << 20, 0x5a);

export function tlsPipe({ certFile, keyFile, bytes }) {
  return new Promise((resolve, reject) => {
    const server = fork(SELF, ['serve', certFile, keyFile, String(bytes)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    server.on('error', reject);
    let started;
    server.on('message', (m) => {
      if (m.port) {
        const socket = connect({ port: m.port, host: '127.0.0.1', rejectUnauthorized: false }, () => {
          started = process.hrtime.bigint();
          let left = bytes;
          const send = () => {
            while (left > 0) {
              const n = Math.min(left, CHUNK.length);
              left -= n;
              if (!socket.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return socket.once('drain', send);
            }
          };
          send();
        });
        socket.on('error', reject);
        socket.on('data', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          const cipher = socket.getCipher();
          socket.end();
          server.kill();
          resolve({
            MiBs: Math.round(bytes / 2 ** 20 / seconds),
            cipher: cipher.standardName ?? cipher.name,
            protocol: socket.getProtocol(),
          });
        });
      }
    });
  });
}

if (process.argv[2] === 'serve') {
  const [, , , certFile, keyFile, total] = process.argv;
  const expected = Number(total);
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (socket) => {
    let seen = 0;
    socket.on('data', (chunk) => {
      seen += chunk.length;
      if (seen === expected) socket.write('k');
    });
    socket.on('error', (err) => console.error(`tls pipe server: ${err.message}`));
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}
