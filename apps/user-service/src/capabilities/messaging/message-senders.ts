/** An email to deliver. */
export interface OutboundMail {
  to: string;
  subject: string;
  text: string;
}

/** A text message to deliver. */
export interface OutboundSms {
  /** Phone number digits. */
  to: string;
  /** Extension digits, when the number has one. */
  ext?: string;
  text: string;
}

/** Port: delivers email (SMTP, or files in local mode). */
export abstract class MailSender {
  abstract send(mail: OutboundMail): Promise<void>;
}

/** Port: delivers text messages through an SMS provider. */
export abstract class SmsSender {
  abstract send(sms: OutboundSms): Promise<void>;
}
