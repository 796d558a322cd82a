import { COMMON_ERRORS } from './common';
import { DEVELOPER_ERRORS } from './developer';
import { ErrorEntry, ErrorTable } from './entry';
import { GATEWAY_ERRORS } from './gateway';
import { CHANGE_FEED_ERRORS, COLLABORATOR_ERRORS, FILE_ERRORS, RECORDS_ERRORS, WEBHOOK_ERRORS } from './records';
import { TRASH_ERRORS } from './trash';
import { USER_ERRORS } from './user';

/** Every table of the catalogue, by the module that sends its codes. */
export const ERROR_TABLES = {
  common: [COMMON_ERRORS],
  gateway: [GATEWAY_ERRORS],
  developer: [DEVELOPER_ERRORS],
  user: [USER_ERRORS],
  records: [RECORDS_ERRORS, COLLABORATOR_ERRORS, FILE_ERRORS, WEBHOOK_ERRORS, CHANGE_FEED_ERRORS, TRASH_ERRORS],
} as const;

export type ErrorModule = keyof typeof ERROR_TABLES;

/** The codes of one table. */
type CodesIn<T> = { [K in keyof T]: T[K] extends { code: infer C } ? C : never }[keyof T];

/** Every machine code a module or the gateway can put in a problem body. */
export type ErrorCode =
  | CodesIn<typeof COMMON_ERRORS>
  | CodesIn<typeof GATEWAY_ERRORS>
  | CodesIn<typeof DEVELOPER_ERRORS>
  | CodesIn<typeof USER_ERRORS>
  | CodesIn<typeof RECORDS_ERRORS>
  | CodesIn<typeof COLLABORATOR_ERRORS>
  | CodesIn<typeof FILE_ERRORS>
  | CodesIn<typeof WEBHOOK_ERRORS>
  | CodesIn<typeof CHANGE_FEED_ERRORS>
  | CodesIn<typeof TRASH_ERRORS>;

/** A catalogue entry with the module that sends it. */
export interface CatalogueError extends ErrorEntry {
  readonly code: ErrorCode;
  readonly module: ErrorModule;
}

/** The whole catalogue, module by module, in the order of docs/errors.md. */
export const ERROR_CATALOGUE: readonly CatalogueError[] = Object.entries(ERROR_TABLES).flatMap(([module, tables]) =>
  tables.flatMap((table: ErrorTable) => Object.values(table).map((entry) => ({ ...entry, module }) as CatalogueError)),
);

const BY_CODE: ReadonlyMap<string, CatalogueError> = new Map(ERROR_CATALOGUE.map((e) => [e.code, e]));

/** The catalogue entry of a code, or undefined when the catalogue lacks it. */
export function errorEntry(code: string): CatalogueError | undefined {
  return BY_CODE.get(code);
}

/** True when `code` is a code of the catalogue. */
export function isErrorCode(code: string): code is ErrorCode {
  return BY_CODE.has(code);
}
