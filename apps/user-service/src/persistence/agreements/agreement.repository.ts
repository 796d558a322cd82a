import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AgreementDto } from '@vault/contracts';
import { Transactions, Tx } from '@vault/platform/persistence';
import { AgreementEntity } from './agreement.entity';

/** Consents of accounts: appended, never changed. */
@Injectable()
export class AgreementRepository {
  constructor(private readonly tx: Transactions) {}

  /** Appends consents in the given order; returns the id of each. */
  async append(tx: Tx, accountId: string, consents: AgreementDto[]): Promise<string[]> {
    const ids: string[] = [];
    for (const c of consents) {
      const id = randomUUID();
      await tx.getRepository(AgreementEntity).insert({
        id,
        accountId,
        locale: c.locale,
        type: c.type,
        version: String(c.version),
        consent: c.consent,
      });
      ids.push(id);
    }
    return ids;
  }

  /** The newest consent per agreement type of an account. */
  latestPerType(accountId: string): Promise<AgreementEntity[]> {
    return this.tx.none
      .getRepository(AgreementEntity)
      .createQueryBuilder('g')
      .distinctOn(['g.type'])
      .where('g.account_id = :id', { id: accountId })
      .orderBy('g.type', 'ASC')
      .addOrderBy('g.seq', 'DESC')
      .getMany();
  }
}
