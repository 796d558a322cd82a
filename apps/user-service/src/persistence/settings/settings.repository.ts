import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Transactions, Tx } from '@vault/platform/persistence';
import { SettingsEntity, SettingsFields, settingsFields } from './settings.entity';

/** The settings row of each account. */
@Injectable()
export class SettingsRepository {
  constructor(private readonly tx: Transactions) {}

  findFor(accountId: string, tx: Tx = this.tx.none): Promise<SettingsEntity | null> {
    return tx.findOneBy(SettingsEntity, { accountId });
  }

  /** Stores the settings of an account that has none. */
  async insert(tx: Tx, accountId: string, fields: SettingsFields): Promise<void> {
    await tx.getRepository(SettingsEntity).insert({ id: randomUUID(), accountId, ...settingsFields(fields) });
  }

  /** Replaces the six fields of the stored row, or stores a new one when `stored` is null. */
  replace(tx: Tx, accountId: string, stored: SettingsEntity | null, fields: SettingsFields): Promise<SettingsEntity> {
    const repo = tx.getRepository(SettingsEntity);
    const current = stored ?? repo.create({ id: randomUUID(), accountId });
    return repo.save(Object.assign(current, settingsFields(fields)));
  }

  async deleteFor(tx: Tx, accountId: string): Promise<void> {
    await tx.getRepository(SettingsEntity).delete({ accountId });
  }
}
