import { Injectable } from '@nestjs/common';
import type { MfaType } from '@vault/contracts';
import { IsNull } from 'typeorm';
import { Transactions, Tx } from '@vault/platform/persistence';
import { MfaCodeEntity } from './mfa-code.entity';

/** A try of an account's newest code: the code's row after its attempts were counted. */
export interface MfaCodeTry {
  id: string;
  codeHash: string;
  attempts: number;
  channel: MfaType;
  destinationId: string;
}

/** One-time MFA codes of accounts. */
@Injectable()
export class MfaCodeRepository {
  constructor(private readonly tx: Transactions) {}

  /** The code sent last to the account (used or not). */
  newest(tx: Tx, accountId: string): Promise<MfaCodeEntity | null> {
    return tx.getRepository(MfaCodeEntity).findOne({ where: { accountId }, order: { createdAt: 'DESC' } });
  }

  /** Marks every unused code of the account used. */
  async consumeOpen(tx: Tx, accountId: string): Promise<void> {
    await tx.getRepository(MfaCodeEntity).update({ accountId, consumedAt: IsNull() }, { consumedAt: new Date() });
  }

  async insert(tx: Tx, code: Omit<MfaCodeEntity, 'createdAt'>): Promise<void> {
    await tx.getRepository(MfaCodeEntity).insert(code);
  }

  async delete(id: string): Promise<void> {
    await this.tx.none.getRepository(MfaCodeEntity).delete({ id });
  }

  async deleteFor(tx: Tx, accountId: string): Promise<void> {
    await tx.getRepository(MfaCodeEntity).delete({ accountId });
  }

  /**
   * Counts a try of the account's newest unused code, in one statement, when it is still
   * valid (unexpired, fewer than `maxAttempts` tries); null when there is no such code.
   */
  async tryNewest(accountId: string, maxAttempts: number): Promise<MfaCodeTry | null> {
    const tried = await this.tx.none
      .getRepository(MfaCodeEntity)
      .createQueryBuilder()
      .update(MfaCodeEntity)
      .set({ attempts: () => 'attempts + 1' })
      .where(
        `id = (SELECT c.id FROM mfa_codes c WHERE c.account_id = :account AND c.consumed_at IS NULL
               ORDER BY c.created_at DESC LIMIT 1)
         AND consumed_at IS NULL AND expires_at > now() AND attempts < :max`,
        { account: accountId, max: maxAttempts },
      )
      .returning('id, code_hash, attempts, channel, destination_id')
      .execute();
    const row = (tried.raw as Array<Record<string, unknown>>)[0];
    if (!row) return null;
    return {
      id: String(row['id']),
      codeHash: String(row['code_hash']),
      attempts: Number(row['attempts']),
      channel: row['channel'] as MfaType,
      destinationId: String(row['destination_id']),
    };
  }

  /** Marks an unused code used; false when it was used already. */
  async consume(id: string): Promise<boolean> {
    const used = await this.tx.none.getRepository(MfaCodeEntity).update({ id, consumedAt: IsNull() }, { consumedAt: new Date() });
    return Boolean(used.affected);
  }
}
