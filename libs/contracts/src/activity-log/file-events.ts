import { SUBJECTS } from '../events';

// The payload class of file events, FileChangedEvent, is defined once with the
// other record contracts (libs/contracts/src/records/file-events.ts).

/** Event kinds of the file subjects, derived from the subject. */
export const FILE_EVENT_KINDS = {
  [SUBJECTS.fileUploaded]: { entity: 'File', eventType: 'Create' },
  [SUBJECTS.fileUpdated]: { entity: 'File', eventType: 'Update' },
  [SUBJECTS.fileDeleted]: { entity: 'File', eventType: 'Delete' },
} as const;
