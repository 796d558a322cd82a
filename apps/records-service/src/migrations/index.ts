import { IdempotencyKeys1763900000000 } from '@vault/platform/idempotency';
import { RecordsSchema1763800000000 } from './1763800000000-records-schema';
import { RecordCatalogue1763800000001 } from './1763800000001-record-catalogue';
import { ActivityLog1763800000100 } from './1763800000100-activity-log';
import { OutboxRetention1763800000101 } from './1763800000101-outbox-retention';
import { RecordFiles1763800000200 } from './1763800000200-record-files';
import { LiveRecordCounter1763800000300 } from './1763800000300-live-record-counter';
import { ActivityLogPaging1763800000400 } from './1763800000400-activity-log-paging';
import { RecordSearchOrder1763800000500 } from './1763800000500-record-search-order';
import { ResourceVersions1763800000700 } from './1763800000700-resource-versions';
import { ResumableUploads1763800000800 } from './1763800000800-resumable-uploads';
import { Collaborators1763800000900 } from './1763800000900-collaborators';
import { Webhooks1763800001000 } from './1763800001000-webhooks';
import { OutboxTrace1763800001100 } from './1763800001100-outbox-trace';
import { ChangeFeed1763800001200 } from './1763800001200-change-feed';
import { ResumableHashInMemory1763800001300 } from './1763800001300-resumable-hash-in-memory';
import { WebhookDeliveryLease1763900000400 } from './1763900000400-webhook-delivery-lease';
import { VaultDeletionSchedule1763900000300 } from './1763900000300-vault-deletion-schedule';
import { WebhookDisabledCode1763900000700 } from './1763900000700-webhook-disabled-code';
import { FileVersions1764000000000 } from './1764000000000-file-versions';
import { Trash1764100000000 } from './1764100000000-trash';
import { SearchIndex1764200000000 } from './1764200000000-search-index';
import { VaultKeys1764300000000 } from './1764300000000-vault-keys';
import { BlobEnvelopes1764300000001 } from './1764300000001-blob-envelopes';
import { SearchWords1764450000000 } from './1764450000000-search-words';
import { SearchVectorsInline1764500000000 } from './1764500000000-search-vectors-inline';
import { ClaimRecordPlace1764600000000 } from './1764600000000-claim-record-place';

/** Migrations of records-service in order, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: Function[] = [
  RecordsSchema1763800000000,
  RecordCatalogue1763800000001,
  ActivityLog1763800000100,
  OutboxRetention1763800000101,
  RecordFiles1763800000200,
  LiveRecordCounter1763800000300,
  ActivityLogPaging1763800000400,
  RecordSearchOrder1763800000500,
  ResourceVersions1763800000700,
  ResumableUploads1763800000800,
  Collaborators1763800000900,
  Webhooks1763800001000,
  OutboxTrace1763800001100,
  ChangeFeed1763800001200,
  ResumableHashInMemory1763800001300,
  IdempotencyKeys1763900000000,
  WebhookDeliveryLease1763900000400,
  VaultDeletionSchedule1763900000300,
  WebhookDisabledCode1763900000700,
  FileVersions1764000000000,
  Trash1764100000000,
  SearchIndex1764200000000,
  VaultKeys1764300000000,
  BlobEnvelopes1764300000001,
  SearchWords1764450000000,
  SearchVectorsInline1764500000000,
  ClaimRecordPlace1764600000000,
];
