import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTransport, Transporter } from 'nodemailer';
import { MailSender, OutboundMail } from './message-senders';

/** File name of a stored message: sortable by time, never derived from user input. */
export function messageFileName(extension: string): string {
  return `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.${extension}`;
}

/**
 * Local mode (no SMTP_URL): each mail is rendered as a standard RFC 5322 message
 * and written to MAIL_DIR as an `.eml` file a developer can open.
 */
export class FileMailSender extends MailSender {
  private readonly logger = new Logger('FileMail');
  private readonly transport: Transporter;
  private readonly dir: string;

  constructor(
    dir: string,
    private readonly from: string,
  ) {
    super();
    this.dir = resolve(dir);
    this.transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  async send(mail: OutboundMail): Promise<void> {
    const info = await this.transport.sendMail({ from: this.from, ...mail });
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, messageFileName('eml'));
    await writeFile(file, info.message as Buffer, { mode: 0o600 });
    this.logger.log(`mail to ${mail.to} written to ${file}`);
  }
}
