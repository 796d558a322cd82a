import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes as they are (over TLS, or plain TCP) and reads the one answer
 * until the server closes the connection: for what ordinary clients refuse to
 * send (CONNECT, made-up methods, broken syntax).
 */
export function rawExchange(port: number, bytes: string, tls: boolean): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = tls
      ? tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false })
      : tcpConnect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer closed within 5 s; got: ${Buffer.concat(chunks).toString('latin1')}`));
    }, 5_000);
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
  });
}
