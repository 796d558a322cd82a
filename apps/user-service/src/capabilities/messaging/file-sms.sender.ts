import { Logger } from '@nestjs/common';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { messageFileName } from './file-mail.sender';
import { OutboundSms, SmsSender } from './message-senders';

/**
 * The SMS adapter of local and test mode: each message is written to SMS_DIR as
 * a JSON file `{to, ext, text, sentAt}`. A provider adapter implements the same port.
 */
export class FileSmsSender extends SmsSender {
  private readonly logger = new Logger('FileSms');
  private readonly dir: string;

  constructor(dir: string) {
    super();
    this.dir = resolve(dir);
  }

  async send(sms: OutboundSms): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, messageFileName('json'));
    await writeFile(file, JSON.stringify({ ...sms, sentAt: new Date().toISOString() }), { mode: 0o600 });
    this.logger.log(`text message to ${sms.to} written to ${file}`);
  }
}
