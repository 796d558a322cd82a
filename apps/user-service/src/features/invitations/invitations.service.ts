import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { InvitationDto, Principal } from '@vault/contracts';
import { MailSender } from '../../capabilities/messaging/message-senders';
import { UserEnv } from '../../config/user.env';
import { InvitationRepository } from '../../persistence/invitations/invitation.repository';
import { Transactions, Tx } from '@vault/platform/persistence';
import { newInvitationCode } from './invitation-code';
import { invitationUndelivered, tooManyInvitations } from './invitations.errors';

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

/** `POST /accounts/invitations`: an invitation with a single-use code, sent by mail (redeemed at registration). */
@Injectable()
export class InvitationsService {
  private readonly logger = new Logger('Invitations');

  constructor(
    private readonly transactions: Transactions,
    private readonly invitations: InvitationRepository,
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
    await this.transactions.run(async (tx) => {
      await this.throttle(tx, p);
      await this.invitations.insert(tx, {
        id,
        tenantId: p.tenantId,
        invitedBy: p.openId,
        email: dto.email,
        firstName: dto.firstName ?? dto.firsName ?? null,
        lastName: dto.lastName ?? dto.LastName ?? null,
        phone: dto.phone ?? null,
        code,
        expiresAt,
      });
    });
    try {
      await this.mail.send(invitationMail(dto, code, expiresAt));
    } catch (err) {
      this.logger.error(`Invitation delivery failed: ${err}`);
      await this.invitations.delete(id);
      throw invitationUndelivered();
    }
  }

  /**
   * Each identity sends at most INVITATIONS_PER_HOUR invitations in any rolling
   * hour. A lock on the identity serialises its senders from the count to the
   * insert, so parallel requests cannot overshoot.
   */
  private async throttle(tx: Tx, p: Principal): Promise<void> {
    await this.invitations.lockSender(tx, p.tenantId, p.openId);
    const limit = this.env.INVITATIONS_PER_HOUR;
    const recent = await this.invitations.sentSince(tx, p.tenantId, p.openId, new Date(Date.now() - HOUR_MS), limit);
    if (recent.length >= limit) {
      const oldest = recent[recent.length - 1].getTime();
      throw tooManyInvitations((oldest + HOUR_MS - Date.now()) / 1000);
    }
  }
}
