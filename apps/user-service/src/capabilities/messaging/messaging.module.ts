import { Logger, Module } from '@nestjs/common';
import { UserEnv } from '../../config/user.env';
import { FileMailSender } from './file-mail.sender';
import { FileSmsSender } from './file-sms.sender';
import { MailSender, SmsSender } from './message-senders';
import { SmtpMailSender } from './smtp-mail.sender';

/** Outgoing messages: email through SMTP (or files locally) and SMS through a provider port. */
@Module({
  providers: [
    {
      provide: MailSender,
      inject: [UserEnv],
      useFactory: (env: UserEnv): MailSender =>
        env.SMTP_URL ? new SmtpMailSender(env.SMTP_URL, env.MAIL_FROM) : new FileMailSender(env.MAIL_DIR, env.MAIL_FROM),
    },
    {
      provide: SmsSender,
      inject: [UserEnv],
      useFactory: (env: UserEnv): SmsSender => {
        if (env.NODE_ENV === 'production') {
          new Logger('Messaging').warn(`no SMS provider configured: text messages are written to ${env.SMS_DIR}`);
        }
        return new FileSmsSender(env.SMS_DIR);
      },
    },
  ],
  exports: [MailSender, SmsSender],
})
export class MessagingModule {}
