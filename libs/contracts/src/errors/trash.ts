import { codesOf, ErrorTable } from './entry';

/** Codes of the records module about the trash, retention and legal holds (docs/records-api.md, Trash). */
export const TRASH_ERRORS = {
  nameTaken: {
    code: 'name_taken',
    status: 409,
    meaning: "A live file of the record took the trashed file's name meanwhile: restore it with onConflict=rename.",
  },
  parentInTrash: {
    code: 'parent_in_trash',
    status: 409,
    meaning: 'The item belongs to a vault or record that is in the trash itself: restore that first.',
  },
  legalHold: {
    code: 'legal_hold',
    status: 409,
    meaning: 'A legal hold (named in the detail) keeps the item, or something it holds, from being purged.',
  },
  retentionPeriod: {
    code: 'retention_period',
    status: 409,
    meaning: "The plan's retention period keeps the item, or something it holds, from purge until the date in the detail.",
  },
  complianceRoleRequired: {
    code: 'compliance_role_required',
    status: 403,
    meaning: 'Only a compliance officer of the tenant (token role compliance) places, lists and releases legal holds.',
  },
  holdReleased: {
    code: 'hold_released',
    status: 409,
    meaning: 'The legal hold was released already.',
  },
} as const satisfies ErrorTable;

/** Machine codes of trash, retention and legal-hold refusals. */
export const TRASH_ERROR_CODES = codesOf(TRASH_ERRORS);
