/** One code of the error catalogue: the status it is sent with and what it means. */
export interface ErrorEntry {
  /** Stable snake_case machine code, the `code` member of the problem body. */
  readonly code: string;
  /** HTTP status the code is sent with. */
  readonly status: number;
  /** One line for clients: when the code is sent. */
  readonly meaning: string;
}

/** A module's codes, keyed by the constant name services use (`fileNameTaken`). */
export type ErrorTable = Readonly<Record<string, ErrorEntry>>;

/** `{ fileNameTaken: 'file_name_taken', … }` for a table. */
export type CodesOf<T extends ErrorTable> = { readonly [K in keyof T]: T[K]['code'] };

/** The constants of a table: each key mapped to its code. */
export function codesOf<T extends ErrorTable>(table: T): CodesOf<T> {
  return Object.fromEntries(Object.entries(table).map(([key, entry]) => [key, entry.code])) as CodesOf<T>;
}
