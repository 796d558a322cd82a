import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { MfaType, Principal, SendMfaCodeDto } from '@vault/contracts';
import { MailSender, SmsSender } from '../../capabilities/messaging/message-senders';
import { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { UserEnv } from '../../config/user.env';
import { AccountEntity, StoredEmail, StoredPhone } from '../../persistence/accounts/account.entity';
import { AccountRepository } from '../../persistence/accounts/account.repository';
import { MfaCodeRepository } from '../../persistence/mfa-codes/mfa-code.repository';
import { Transactions } from '@vault/platform/persistence';
import { hashMfaCode, MFA_CODE_TTL_MS, MFA_MAX_ATTEMPTS, mfaCodeMatches, newMfaCode } from './mfa-code';
import { mfaText } from './mfa-messages';
import { codeSentMomentsAgo, codeUndelivered, invalidMfaCode, noMfaDestination } from './mfa.errors';

type Destination = { channel: 'email'; entry: StoredEmail } | { channel: 'sms'; entry: StoredPhone };

function preferred<T extends { primary: boolean }>(entries: T[]): T | undefined {
  return entries.find((e) => e.primary) ?? entries[0];
}

function destinationOf(a: AccountEntity, type: MfaType): Destination {
  if (type === 'email') {
    const entry = preferred(a.emails);
    if (entry) return { channel: 'email', entry };
  } else {
    const entry = preferred(a.phones.filter((p) => p.mobile));
    if (entry) return { channel: 'sms', entry };
  }
  throw noMfaDestination(type);
}

/**
 * Multi-factor codes: six CSPRNG digits, stored salted and hashed, valid ten
 * minutes, single use, at most five tries; a new code replaces the previous one
 * and sending is throttled per account.
 */
@Injectable()
export class MfaService {
  private readonly logger = new Logger('Mfa');

  constructor(
    private readonly transactions: Transactions,
    private readonly accounts: AccountRepository,
    private readonly codes: MfaCodeRepository,
    private readonly own: OwnAccountService,
    private readonly mail: MailSender,
    private readonly sms: SmsSender,
    private readonly env: UserEnv,
  ) {}

  async send(p: Principal, id: string, dto: SendMfaCodeDto): Promise<void> {
    const account = await this.own.ownById(p, id);
    const destination = destinationOf(account, dto.type);
    const code = newMfaCode();
    const codeId = randomUUID();
    await this.transactions.run(async (tx) => {
      // One sender at a time per account: the throttle cannot be raced.
      await this.accounts.lock(tx, account.id);
      const last = await this.codes.newest(tx, account.id);
      const waitMs = last ? last.createdAt.getTime() + this.env.MFA_RESEND_INTERVAL_SECONDS * 1000 - Date.now() : 0;
      if (waitMs > 0) throw codeSentMomentsAgo(waitMs / 1000);
      await this.codes.consumeOpen(tx, account.id);
      await this.codes.insert(tx, {
        id: codeId,
        accountId: account.id,
        channel: dto.type,
        destinationId: destination.entry._id,
        codeHash: hashMfaCode(code),
        attempts: 0,
        expiresAt: new Date(Date.now() + MFA_CODE_TTL_MS),
        consumedAt: null,
      });
    });
    try {
      await this.deliver(destination, code, dto);
    } catch (err) {
      this.logger.error(`MFA delivery failed: ${err}`);
      await this.codes.delete(codeId);
      throw codeUndelivered();
    }
  }

  /** Checks a code: every try counts, the right one is consumed and verifies its destination. */
  async verify(p: Principal, id: string, code: string): Promise<void> {
    const account = await this.own.ownById(p, id);
    const tried = await this.codes.tryNewest(account.id, MFA_MAX_ATTEMPTS);
    if (!tried) throw invalidMfaCode();
    if (!mfaCodeMatches(code, tried.codeHash)) {
      if (tried.attempts >= MFA_MAX_ATTEMPTS) await this.codes.consume(tried.id);
      throw invalidMfaCode();
    }
    if (!(await this.codes.consume(tried.id))) throw invalidMfaCode();
    await this.markVerified(p, id, tried.channel, tried.destinationId);
  }

  private async deliver(d: Destination, code: string, dto: SendMfaCodeDto): Promise<void> {
    const text = mfaText(dto.locale);
    if (d.channel === 'email') {
      await this.mail.send({ to: d.entry.address, subject: text.subject, text: text.body(code) });
    } else {
      await this.sms.send({ to: String(d.entry.number), ext: String(d.entry.ext), text: text.body(code) });
    }
  }

  /** A destination that received a valid code is verified. */
  private async markVerified(p: Principal, id: string, channel: MfaType, entryId: string): Promise<void> {
    await this.own.mutate(p, id, (a) => {
      if (channel === 'email') a.emails = a.emails.map((e) => (e._id === entryId ? { ...e, verified: true } : e));
      else a.phones = a.phones.map((e) => (e._id === entryId ? { ...e, verified: true } : e));
    });
  }
}
