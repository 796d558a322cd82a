import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message source with quoted-printable soft breaks and escapes decoded. */
  text: string;
}

function decodeQuotedPrintable(raw: string): string {
  const soft = Buffer.from(raw.replace(/=\r?\n/g, ''), 'utf8');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.subarray(i + 1, i + 3).toString('latin1');
    if (soft[i] === 0x3d && /^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(soft[i]);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A real SMTP server on loopback that keeps every message it receives. */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  private server!: SMTPServer;
  url = '';

  static async start(): Promise<SmtpSink> {
    const sink = new SmtpSink();
    sink.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          sink.mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
          });
          callback();
        });
      },
    });
    await new Promise<void>((r) => sink.server.listen(0, '127.0.0.1', r));
    sink.url = `smtp://127.0.0.1:${(sink.server.server.address() as AddressInfo).port}`;
    return sink;
  }

  /** The next mail to `to` received after `since` mails (waits up to 3 s). */
  async next(to: string, since: number): Promise<ReceivedMail> {
    const deadline = Date.now() + 3000;
    for (;;) {
      const mail = this.mails.slice(since).find((m) => m.to.includes(to));
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
