import type { EntityManager } from 'typeorm';
import { RecordEntity } from './record.entity';

/** Records that count against the vault quota: every status except DELETED. */
export async function countLiveRecords(m: EntityManager, vaultId: string): Promise<number> {
  return m
    .getRepository(RecordEntity)
    .createQueryBuilder('r')
    .where('r.vault_id = :vaultId', { vaultId })
    .andWhere(`r.status <> 'DELETED'`)
    .getCount();
}

/** Live records of a vault per record type id. */
export async function countLiveRecordsByType(m: EntityManager, vaultId: string): Promise<Map<string, number>> {
  const rows: { typeId: string; count: string }[] = await m
    .getRepository(RecordEntity)
    .createQueryBuilder('r')
    .select('r.record_type_id', 'typeId')
    .addSelect('count(*)', 'count')
    .where('r.vault_id = :vaultId', { vaultId })
    .andWhere(`r.status <> 'DELETED'`)
    .groupBy('r.record_type_id')
    .getRawMany();
  return new Map(rows.map((r) => [r.typeId, Number(r.count)]));
}
