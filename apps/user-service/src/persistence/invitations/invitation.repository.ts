import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { IsNull, MoreThan } from 'typeorm';
import { Transactions, Tx } from '@vault/platform/persistence';
import { InvitationEntity } from './invitation.entity';

/** Digest stored in place of a code (codes carry enough entropy for a plain hash). */
function codeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/** A new invitation: its fields, with the code itself (stored as its digest only). */
export type NewInvitation = Omit<InvitationEntity, 'codeHash' | 'consumedAt' | 'consumedBy' | 'createdAt'> & { code: string };

/** Invitations and their single-use codes; a code is kept only as its SHA-256 digest. */
@Injectable()
export class InvitationRepository {
  constructor(private readonly tx: Transactions) {}

  /**
   * Serialises the invitations one identity sends, until the transaction ends
   * (a transaction-scoped advisory lock on the identity).
   */
  async lockSender(tx: Tx, tenantId: string, openId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`invitations\n${tenantId}\n${openId}`]);
  }

  /** When the identity sent its invitations since `since`, newest first, at most `take`. */
  async sentSince(tx: Tx, tenantId: string, openId: string, since: Date, take: number): Promise<Date[]> {
    const recent = await tx.getRepository(InvitationEntity).find({
      select: { createdAt: true },
      where: { tenantId, invitedBy: openId, createdAt: MoreThan(since) },
      order: { createdAt: 'DESC' },
      take,
    });
    return recent.map((i) => i.createdAt);
  }

  async insert(tx: Tx, { code, ...fields }: NewInvitation): Promise<void> {
    await tx.getRepository(InvitationEntity).insert({ ...fields, codeHash: codeHash(code), consumedAt: null, consumedBy: null });
  }

  async delete(id: string): Promise<void> {
    await this.tx.none.getRepository(InvitationEntity).delete({ id });
  }

  /** Marks the tenant's unexpired, unused invitation of this code used by the account; false when there is none. */
  async consume(tx: Tx, tenantId: string, code: string, accountId: string): Promise<boolean> {
    const result = await tx
      .getRepository(InvitationEntity)
      .update(
        { tenantId, codeHash: codeHash(code), consumedAt: IsNull(), expiresAt: MoreThan(new Date()) },
        { consumedAt: new Date(), consumedBy: accountId },
      );
    return Boolean(result.affected);
  }
}
