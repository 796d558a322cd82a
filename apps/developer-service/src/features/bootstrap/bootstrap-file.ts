import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors } from '@vault/platform/errors';
import { BootstrapFile } from './bootstrap-file.dto';

export class BootstrapFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/**
 * Parses and validates the bootstrap JSON: shape (unknown fields refused),
 * then cross-entry rules: unique tenant ids, client ids unique across tenants,
 * usernames unique per tenant (case-insensitive), test applications need a
 * redirect URI. Throws BootstrapFileError listing every problem.
 */
export function parseBootstrapFile(text: string): BootstrapFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BootstrapFileError([`not valid JSON (${(e as Error).message})`]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new BootstrapFileError(['must be a JSON object with a "tenants" array']);
  }
  const file = plainToInstance(BootstrapFile, raw);
  const errors = validateSync(file, {
    whitelist: true,
    forbidNonWhitelisted: true,
  });
  if (errors.length > 0) {
    throw new BootstrapFileError(flattenValidationErrors(errors).map((p) => `${p.field}: ${p.message}`));
  }
  const problems = crossChecks(file);
  if (problems.length > 0) throw new BootstrapFileError(problems);
  return file;
}

function crossChecks(file: BootstrapFile): string[] {
  const problems: string[] = [];
  const tenantIds = new Set<string>();
  const clientIds = new Set<string>();
  file.tenants.forEach((t, ti) => {
    if (tenantIds.has(t.id)) problems.push(`tenants.${ti}.id: duplicate tenant id "${t.id}"`);
    tenantIds.add(t.id);
    (t.applications ?? []).forEach((a, ai) => {
      const at = `tenants.${ti}.applications.${ai}`;
      if (clientIds.has(a.clientId)) problems.push(`${at}.clientId: duplicate client id "${a.clientId}"`);
      clientIds.add(a.clientId);
      if (a.testMode && !(a.redirectUris ?? []).length) {
        problems.push(`${at}.redirectUris: a test application needs at least one redirect URI`);
      }
    });
    const usernames = new Set<string>();
    (t.users ?? []).forEach((u, ui) => {
      const key = u.username.toLowerCase();
      if (usernames.has(key)) {
        problems.push(`tenants.${ti}.users.${ui}.username: duplicate username "${u.username}"`);
      }
      usernames.add(key);
    });
  });
  return problems;
}
