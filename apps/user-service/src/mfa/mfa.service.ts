import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, IsNull } from 'typeorm';
import { ERROR_CODES, USER_ERROR_CODES } from '@vault/contracts';
import type { MfaType, Principal, SendMfaCodeDto } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { AccountEntity, StoredEmail, StoredPhone } from '../accounts/account.entity';
import { AccountsService } from '../accounts/accounts.service';
import { UserEnv } from '../config/user.env';
import { MailSender, SmsSender } from '../messaging/message-senders';
import { MfaCodeEntity } from './mfa-code.entity';
import { hashMfaCode, MFA_CODE_TTL_MS, MFA_MAX_ATTEMPTS, mfaCodeMatches, newMfaCode } from './mfa-code';
import { mfaText } from './mfa-messages';

type Destination = { channel: 'email'; entry: StoredEmail } | { channel: 'sms'; entry: StoredPhone };

/** The one answer for a wrong, expired, used or exhausted code (no oracle). */
const invalidCode = () =>
  new ProblemException(400, USER_ERROR_CODES.invalidMfaCode, 'The code is wrong, expired or already used.', [
    { field: 'code', message: 'code is wrong, expired or already used' },
  ]);

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
  throw ProblemException.conflict(
    USER_ERROR_CODES.noMfaDestination,
    type === 'email' ? 'The account has no email address.' : 'The account has no mobile phone number.',
  );
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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsService,
    private readonly mail: MailSender,
    private readonly sms: SmsSender,
    private readonly env: UserEnv,
  ) {}

  async send(p: Principal, id: string, dto: SendMfaCodeDto): Promise<void> {
    const account = await this.accounts.ownById(p, id);
    const destination = destinationOf(account, dto.type);
    const code = newMfaCode();
    const codeId = randomUUID();
    await this.dataSource.transaction(async (m) => {
      // One sender at a time per account: the throttle cannot be raced.
      await m
        .getRepository(AccountEntity)
        .createQueryBuilder('a')
        .setLock('pessimistic_write')
        .where('a.id = :id', { id: account.id })
        .getOne();
      const codes = m.getRepository(MfaCodeEntity);
      const last = await codes.findOne({ where: { accountId: account.id }, order: { createdAt: 'DESC' } });
      const waitMs = last
        ? last.createdAt.getTime() + this.env.MFA_RESEND_INTERVAL_SECONDS * 1000 - Date.now()
        : 0;
      if (waitMs > 0) {
        throw ProblemException.tooManyRequests(waitMs / 1000, 'A code was sent moments ago; retry later.');
      }
      await codes.update({ accountId: account.id, consumedAt: IsNull() }, { consumedAt: new Date() });
      await codes.insert({
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
      await this.dataSource.getRepository(MfaCodeEntity).delete({ id: codeId });
      throw new ProblemException(503, ERROR_CODES.serviceUnavailable, 'The code could not be delivered; retry later.');
    }
  }

  /** Checks a code: every try counts, the right one is consumed and verifies its destination. */
  async verify(p: Principal, id: string, code: string): Promise<void> {
    const account = await this.accounts.ownById(p, id);
    const codes = this.dataSource.getRepository(MfaCodeEntity);
    const tried = await codes
      .createQueryBuilder()
      .update(MfaCodeEntity)
      .set({ attempts: () => 'attempts + 1' })
      .where(
        `id = (SELECT c.id FROM mfa_codes c WHERE c.account_id = :account AND c.consumed_at IS NULL
               ORDER BY c.created_at DESC LIMIT 1)
         AND consumed_at IS NULL AND expires_at > now() AND attempts < :max`,
        { account: account.id, max: MFA_MAX_ATTEMPTS },
      )
      .returning('id, code_hash, attempts, channel, destination_id')
      .execute();
    const row = (tried.raw as Array<Record<string, unknown>>)[0];
    if (!row) throw invalidCode();
    const matches = mfaCodeMatches(code, String(row['code_hash']));
    if (!matches) {
      if (Number(row['attempts']) >= MFA_MAX_ATTEMPTS) {
        await codes.update({ id: String(row['id']), consumedAt: IsNull() }, { consumedAt: new Date() });
      }
      throw invalidCode();
    }
    const used = await codes.update({ id: String(row['id']), consumedAt: IsNull() }, { consumedAt: new Date() });
    if (!used.affected) throw invalidCode();
    await this.markVerified(p, id, row['channel'] as MfaType, String(row['destination_id']));
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
    await this.accounts.mutate(p, id, (a) => {
      if (channel === 'email') a.emails = a.emails.map((e) => (e._id === entryId ? { ...e, verified: true } : e));
      else a.phones = a.phones.map((e) => (e._id === entryId ? { ...e, verified: true } : e));
    });
  }
}
