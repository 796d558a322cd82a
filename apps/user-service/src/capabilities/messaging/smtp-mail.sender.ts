import { Logger } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { MailSender, OutboundMail } from './message-senders';

/** Sends mail through the SMTP server named by SMTP_URL. */
export class SmtpMailSender extends MailSender {
  private readonly logger = new Logger('SmtpMail');
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    super();
    this.transport = createTransport(url);
  }

  async send(mail: OutboundMail): Promise<void> {
    const info = await this.transport.sendMail({ from: this.from, ...mail });
    this.logger.debug(`mail ${info.messageId} accepted by SMTP server`);
  }
}
