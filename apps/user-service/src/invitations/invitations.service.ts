import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, IsNull, MoreThan } from 'typeorm';
import { ERROR_CODES, USER_ERROR_CODES } from '@vault/contracts';
import type { InvitationDto, Principal } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { UserEnv } from '../config/user.env';
import { MailSender } from '../messaging/message-senders';
import { InvitationEntity } from './invitation.entity';
import { invitationCodeHash, newInvitationCode } from './invitation-code';

const HOUR_MS = 60 * 60 * 1000;

function invitationMail(dto: InvitationDto, code: string, expiresAt: Date) {
  const name = dto.firstName ?? dto.firsName;
  return {
    to: dto.email,
    subject: 'You are invited to open a Vault account',
    text: [
      `Hello${name ? ` ${name}` : ''},`,
      '',
      'You have been invited to open a Vault account.',
      `Your invitation code: ${code}`,
      '',
      `Enter it when you create your account. It can be used once, until ${expiresAt.toISOString()}.`,
    ].join('\n'),
  };
}

/** The one answer when the invitation mail cannot be delivered (the invitation is dropped). */
const undelivered = () =>
  new ProblemException(503, ERROR_CODES.serviceUnavailable, 'The invitation could not be delivered; retry later.');

@Injectable()
export class InvitationsService {
  private readonly logger = new Logger('Invitations');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly mail: MailSender,
    private readonly env: UserEnv,
  ) {}

  /**
   * Stores an invitation with a fresh single-use code and emails the code. An
   * invitation whose mail cannot be delivered is removed again (nobody holds its
   * code, and it does not count against the throttle) and the caller gets 503.
   */
  async invite(p: Principal, dto: InvitationDto): Promise<void> {
    const code = newInvitationCode();
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.env.INVITATION_TTL_HOURS * HOUR_MS);
    await this.dataSource.transaction(async (m) => {
      await this.throttle(m, p);
      await m.getRepository(InvitationEntity).insert({
        id,
        tenantId: p.tenantId,
        invitedBy: p.openId,
        email: dto.email,
        firstName: dto.firstName ?? dto.firsName ?? null,
        lastName: dto.lastName ?? dto.LastName ?? null,
        phone: dto.phone ?? null,
        codeHash: invitationCodeHash(code),
        expiresAt,
        consumedAt: null,
        consumedBy: null,
      });
    });
    try {
      await this.mail.send(invitationMail(dto, code, expiresAt));
    } catch (err) {
      this.logger.error(`Invitation delivery failed: ${err}`);
      await this.dataSource.getRepository(InvitationEntity).delete({ id });
      throw undelivered();
    }
  }

  /**
   * Each identity sends at most INVITATIONS_PER_HOUR invitations in any rolling
   * hour. A transaction-scoped advisory lock on the identity serialises its
   * senders from the count to the insert, so parallel requests cannot overshoot.
   */
  private async throttle(m: EntityManager, p: Principal): Promise<void> {
    await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `invitations\n${p.tenantId}\n${p.openId}`,
    ]);
    const recent = await m.getRepository(InvitationEntity).find({
      select: { createdAt: true },
      where: { tenantId: p.tenantId, invitedBy: p.openId, createdAt: MoreThan(new Date(Date.now() - HOUR_MS)) },
      order: { createdAt: 'DESC' },
      take: this.env.INVITATIONS_PER_HOUR,
    });
    if (recent.length >= this.env.INVITATIONS_PER_HOUR) {
      const oldest = recent[recent.length - 1].createdAt.getTime();
      throw ProblemException.tooManyRequests((oldest + HOUR_MS - Date.now()) / 1000, 'Too many invitations sent; retry later.');
    }
  }

  /**
   * Consumes a code of the tenant for a new account, inside its creation
   * transaction (a failed creation leaves the code unused). Unknown, expired and
   * used codes all answer the same 400.
   */
  async redeem(m: EntityManager, tenantId: string, code: string, accountId: string): Promise<void> {
    const result = await m.getRepository(InvitationEntity).update(
      {
        tenantId,
        codeHash: invitationCodeHash(code),
        consumedAt: IsNull(),
        expiresAt: MoreThan(new Date()),
      },
      { consumedAt: new Date(), consumedBy: accountId },
    );
    if (!result.affected) {
      throw new ProblemException(400, USER_ERROR_CODES.invalidInvitationCode, 'The invitation code is unknown, expired or used.', [
        { field: 'invitationCode', message: 'invitationCode is unknown, expired or already used' },
      ]);
    }
  }
}
