import { AccountDirectoryEntity } from './account-directory/account-directory.entity';
import { ActivityLogEntryEntity } from './activity-log/activity-log-entry.entity';
import { RecordMembershipEntity, VaultMembershipEntity } from './memberships/membership.entity';
import { RecordSubtypeEntity, RecordTypeEntity } from './record-types/record-type.entity';
import { OutboxEventEntity } from './outbox/outbox-event.entity';
import { BlobEntity } from './blobs/blob.entity';
import { FileVersionEntity } from './file-versions/file-version.entity';
import { FilePurgeEntity, RecordFileEntity } from './record-files/record-file.entity';
import { LicenseEntity } from './licenses/license.entity';
import { RecordEntity } from './records/record.entity';
import { ResumableUploadEntity } from './resumable-uploads/resumable-upload.entity';
import { VaultEntity } from './vaults/vault.entity';
import { WebhookDeliveryEntity } from './webhooks/webhook-delivery.entity';
import { WebhookEntity } from './webhooks/webhook.entity';

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
  BlobEntity,
  FileVersionEntity,
  ResumableUploadEntity,
  AccountDirectoryEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
];
