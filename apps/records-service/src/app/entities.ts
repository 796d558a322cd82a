import { ActivityLogEntryEntity } from './activity-log/activity-log-entry.entity';
import { RecordMembershipEntity, VaultMembershipEntity } from './access/membership.entity';
import { RecordSubtypeEntity, RecordTypeEntity } from './catalogue/record-type.entity';
import { OutboxEventEntity } from './events/outbox-event.entity';
import { FilePurgeEntity, RecordFileEntity } from './files/record-file.entity';
import { LicenseEntity } from './plans/license.entity';
import { RecordEntity } from './records/record.entity';
import { VaultEntity } from './vaults/vault.entity';

/** Every TypeORM entity of records-service, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ENTITIES: Function[] = [
  VaultEntity,
  LicenseEntity,
  VaultMembershipEntity,
  RecordMembershipEntity,
  RecordTypeEntity,
  RecordSubtypeEntity,
  RecordEntity,
  OutboxEventEntity,
  ActivityLogEntryEntity,
  RecordFileEntity,
  FilePurgeEntity,
];
