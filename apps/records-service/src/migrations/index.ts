import { RecordsSchema1763800000000 } from './1763800000000-records-schema';
import { RecordCatalogue1763800000001 } from './1763800000001-record-catalogue';
import { ActivityLog1763800000100 } from './1763800000100-activity-log';
import { OutboxRetention1763800000101 } from './1763800000101-outbox-retention';
import { RecordFiles1763800000200 } from './1763800000200-record-files';

/** Migrations of records-service in order, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: Function[] = [RecordsSchema1763800000000, RecordCatalogue1763800000001, ActivityLog1763800000100, OutboxRetention1763800000101, RecordFiles1763800000200];
