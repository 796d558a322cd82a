import { Module } from '@nestjs/common';
import { AccessRepository } from './access.repository';
import { AccountDirectoryRepository } from './account-directory.repository';
import { ActivityLogRepository } from './activity-log.repository';
import { ChangeFeedRepository } from './change-feed.repository';
import { CollaboratorRepository } from './collaborator.repository';
import { LicenseRepository } from './license.repository';
import { MembershipRepository } from './membership.repository';
import { PurgeQueueRepository } from './purge-queue.repository';
import { RecordFileRepository } from './record-file.repository';
import { RecordTypeRepository } from './record-type.repository';
import { RecordRepository } from './record.repository';
import { ResumableUploadRepository } from './resumable-upload.repository';
import { Transactions } from './transactions';
import { UsageRepository } from './usage.repository';
import { VaultRepository } from './vault.repository';
import { WebhookRepository } from './webhook.repository';

const PROVIDERS = [
  Transactions,
  AccessRepository,
  VaultRepository,
  RecordRepository,
  RecordFileRepository,
  PurgeQueueRepository,
  MembershipRepository,
  LicenseRepository,
  RecordTypeRepository,
  UsageRepository,
  ActivityLogRepository,
  ResumableUploadRepository,
  AccountDirectoryRepository,
  CollaboratorRepository,
  WebhookRepository,
  ChangeFeedRepository,
];

/**
 * The records-service persistence seam: entities, one repository per aggregate
 * (queries and row locks, nothing else) and the transaction runner. Services above
 * it hold the rules and can be tested with these classes replaced.
 */
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class PersistenceModule {}
