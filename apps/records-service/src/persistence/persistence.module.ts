import { Module } from '@nestjs/common';
import { AccessRepository } from './access/access.repository';
import { AccountDirectoryRepository } from './account-directory/account-directory.repository';
import { ActivityLogRepository } from './activity-log/activity-log.repository';
import { ChangeFeedRepository } from './change-feed/change-feed.repository';
import { BlobRepository } from './blobs/blob.repository';
import { CollaboratorRepository } from './memberships/collaborator.repository';
import { FileVersionRepository } from './file-versions/file-version.repository';
import { LegalHoldRepository } from './legal-holds/legal-hold.repository';
import { LicenseRepository } from './licenses/license.repository';
import { MembershipRepository } from './memberships/membership.repository';
import { PurgeQueueRepository } from './record-files/purge-queue.repository';
import { RecordFileRepository } from './record-files/record-file.repository';
import { RecordTypeRepository } from './record-types/record-type.repository';
import { RecordRepository } from './records/record.repository';
import { ResumableUploadRepository } from './resumable-uploads/resumable-upload.repository';
import { Transactions } from '@vault/platform/persistence';
import { TrashRepository } from './trash/trash.repository';
import { UsageRepository } from './usage/usage.repository';
import { VaultRepository } from './vaults/vault.repository';
import { WebhookDeliveryRepository } from './webhooks/webhook-delivery.repository';
import { WebhookRepository } from './webhooks/webhook.repository';
import { WebhookSecretRepository } from './webhooks/webhook-secret.repository';

const PROVIDERS = [
  Transactions,
  AccessRepository,
  VaultRepository,
  RecordRepository,
  RecordFileRepository,
  PurgeQueueRepository,
  BlobRepository,
  FileVersionRepository,
  MembershipRepository,
  LicenseRepository,
  RecordTypeRepository,
  UsageRepository,
  ActivityLogRepository,
  ResumableUploadRepository,
  AccountDirectoryRepository,
  CollaboratorRepository,
  WebhookRepository,
  WebhookDeliveryRepository,
  WebhookSecretRepository,
  ChangeFeedRepository,
  TrashRepository,
  LegalHoldRepository,
];

/**
 * The records-service persistence seam: entities, one repository per aggregate
 * (queries and row locks, nothing else) and the transaction runner. Services above
 * it hold the rules and can be tested with these classes replaced.
 */
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class PersistenceModule {}
