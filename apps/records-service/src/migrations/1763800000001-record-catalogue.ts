import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CATALOGUE_ASSET_BASE, catalogueId, displayValues, OTHER_NAME, RECORD_CATALOGUE } from './record-catalogue.data';

/** Inserts the record type and subtype catalogue (reference data). */
export class RecordCatalogue1763800000001 implements MigrationInterface {
  name = 'RecordCatalogue1763800000001';

  async up(q: QueryRunner): Promise<void> {
    for (const [typeIndex, entry] of RECORD_CATALOGUE.entries()) {
      const typeName = entry.type[0];
      const typeId = catalogueId('type', typeName);
      await q.query(
        `INSERT INTO record_types (id, name, vault_type, order_id, logo, display_value)
         VALUES ($1, $2, 'individual', $3, $4, $5)`,
        [typeId, typeName, typeIndex + 1, `${CATALOGUE_ASSET_BASE}/${typeName}.svg`, JSON.stringify(displayValues(entry.type))],
      );
      for (const [subIndex, sub] of entry.subtypes.entries()) {
        const subName = sub[0];
        await q.query(
          `INSERT INTO record_subtypes (id, record_type_id, name, order_id, logo, display_value, block_sections)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            catalogueId('subtype', `${typeName}/${subName}`),
            typeId,
            subName,
            subIndex + 1,
            `${CATALOGUE_ASSET_BASE}/${typeName}/${subName}.svg`,
            JSON.stringify(displayValues(sub)),
            JSON.stringify({
              blockDescription: true,
              blockFiles: true,
              blockLinkedRecords: true,
              blockCollaborators: true,
              blockSpecificFields: subName !== OTHER_NAME,
            }),
          ],
        );
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM record_subtypes`);
    await q.query(`DELETE FROM record_types`);
  }
}
