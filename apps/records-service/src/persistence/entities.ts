import { AccountDirectoryEntity } from './account-directory.entity';
import { ActivityLogEntryEntity } from './activity-log-entry.entity';
import { RecordMembershipEntity, VaultMembershipEntity } from './membership.entity';
import { RecordSubtypeEntity, RecordTypeEntity } from './record-type.entity';
import { OutboxEventEntity } from './outbox-event.entity';
import { FilePurgeEntity, RecordFileEntity } from './record-file.entity';
import { LicenseEntity } from './license.entity';
import { RecordEntity } from './record.entity';
import { ResumableUploadEntity } from './resumable-upload.entity';
import { VaultEntity } from './vault.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

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
  ResumableUploadEntity,
  AccountDirectoryEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
];
