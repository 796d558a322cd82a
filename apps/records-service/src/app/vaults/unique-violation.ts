import { ProblemException } from '@vault/platform';
import { QueryFailedError } from 'typeorm';
import { RECORDS_ERROR_CODES } from '@vault/contracts';

export const EMAIL_USERNAME_INDEX = 'vaults_email_username_uq';

export const emailUsernameTaken = () =>
  ProblemException.conflict(RECORDS_ERROR_CODES.emailUsernameTaken, 'The inbox name is already in use.');

/** Turns a lost race on the inbox-name unique index into the same 409 as the pre-check. */
export function mapEmailRace(err: unknown): never {
  const driver = err instanceof QueryFailedError ? (err.driverError as { code?: string; constraint?: string }) : undefined;
  if (driver?.code === '23505' && driver.constraint === EMAIL_USERNAME_INDEX) throw emailUsernameTaken();
  throw err;
}
