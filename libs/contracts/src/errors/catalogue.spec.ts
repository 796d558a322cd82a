import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as contracts from '../index';
import { ERROR_CATALOGUE, ERROR_TABLES, errorEntry, isErrorCode } from './catalogue';

const ROOT = resolve(__dirname, '../../../..');

/**
 * A place in the sources that puts a code in a problem body. Its status is never written
 * there: ProblemException's constructor is private, so a problem is made from a catalogue
 * entry (`ProblemException.of(entry)`, the gateway's `{ entry, detail }` refusals) and sent
 * with the entry's status.
 */
interface CodeSite {
  file: string;
  /** The code expression as written: a string literal, CONSTANTS.key or TABLE.key. */
  expression: string;
}

/** Calls that put a code in a problem body: [pattern, group of the code]. */
const SITES: [RegExp, number][] = [
  [/ProblemException\.of\(\s*([^,()]+?)\s*[,)]/g, 1],
  [/\bentry:\s*([A-Z][A-Z_]*\.\w+)/g, 1],
  [/problemBody\(\s*[^,()]+?\s*,\s*([^,()]+?)\s*,/g, 1],
  [/\bcode:\s*('[^']*')/g, 1],
];

/** Code sites of one source text. */
function codeSites(file: string, text: string): CodeSite[] {
  const sites: CodeSite[] = [];
  const problemFile = /ProblemException|problemBody|sendProblem|ProblemDetails/.test(text);
  for (const [pattern, codeGroup] of SITES) {
    if (pattern.source.startsWith('\\bcode:') && !problemFile) continue;
    for (const m of text.matchAll(pattern)) sites.push({ file, expression: m[codeGroup].trim() });
  }
  return sites;
}

/** The code an expression stands for; null when it is a variable (checked by the compiler instead). */
function resolveCode(expression: string): string | undefined | null {
  const literal = /^['"`]([^'"`]*)['"`]$/.exec(expression);
  if (literal) return literal[1];
  const constant = /^([A-Z][A-Z_]*)\.(\w+)$/.exec(expression);
  if (constant) {
    const table = (contracts as Record<string, unknown>)[constant[1]] as Record<string, unknown> | undefined;
    const value = table?.[constant[2]];
    // a table of codes (FILE_ERROR_CODES.x) or of catalogue entries (FILE_ERRORS.x)
    const code = typeof value === 'object' && value !== null ? (value as { code?: unknown }).code : value;
    return typeof code === 'string' ? code : undefined;
  }
  return null;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function projectSources(): string[] {
  return ['apps', 'libs'].flatMap((top) =>
    readdirSync(join(ROOT, top)).flatMap((project) => sourceFiles(join(ROOT, top, project, 'src'))),
  );
}

/** Sites whose code the catalogue lacks. */
function problemsOf(sites: CodeSite[]): string[] {
  const problems: string[] = [];
  for (const site of sites) {
    const code = resolveCode(site.expression);
    if (code === null) continue;
    if (code === undefined || !errorEntry(code)) problems.push(`${site.file}: ${site.expression} is not in the error catalogue`);
  }
  return problems;
}

describe('error catalogue', () => {
  it('has unique snake_case codes with an error status and a one-line meaning', () => {
    const codes = ERROR_CATALOGUE.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const e of ERROR_CATALOGUE) {
      expect(e.code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(e.status >= 400 && e.status < 600).toBe(true);
      expect(e.meaning).toMatch(/^\S[^\n]{9,}$/);
    }
    expect(Object.keys(ERROR_TABLES)).toEqual(['common', 'gateway', 'developer', 'user', 'records']);
  });

  it('looks codes up and refuses unknown ones', () => {
    expect(errorEntry('file_name_taken')).toMatchObject({ status: 409, module: 'records' });
    expect(errorEntry('username_taken')).toMatchObject({ status: 409, module: 'user' });
    expect(errorEntry('no_such_code')).toBeUndefined();
    expect(isErrorCode('https_required')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('keeps the constants services already use, with the same keys and values', () => {
    expect(contracts.ERROR_CODES).toMatchObject({
      validationFailed: 'validation_failed',
      unauthorized: 'unauthorized',
      invalidCredentials: 'invalid_credentials',
      forbidden: 'forbidden',
      notFound: 'not_found',
      conflict: 'conflict',
      tooManyRequests: 'too_many_requests',
      payloadTooLarge: 'payload_too_large',
      unsupportedMediaType: 'unsupported_media_type',
      httpsRequired: 'https_required',
      unknownHost: 'unknown_host',
      badGateway: 'bad_gateway',
      serviceUnavailable: 'service_unavailable',
      gatewayTimeout: 'gateway_timeout',
      internal: 'internal_error',
    });
    expect(contracts.RECORDS_ERROR_CODES).toEqual({
      maxRecordsReached: 'max_records_reached',
      maxOwnedVaultsReached: 'max_owned_vaults_reached',
      emailUsernameTaken: 'email_username_taken',
      unknownLicenseKey: 'unknown_license_key',
    });
    expect(contracts.FILE_ERROR_CODES).toEqual({
      fileNameTaken: 'file_name_taken',
      storageQuotaExceeded: 'storage_quota_exceeded',
      checksumMismatch: 'checksum_mismatch',
      uploadExceedsVaultStorage: 'upload_exceeds_vault_storage',
      chunkChecksumMismatch: 'chunk_checksum_mismatch',
      staleCorrelationId: 'stale_correlation_id',
      missingFilePart: 'missing_file_part',
      fileDamaged: 'file_damaged',
      uploadLocked: 'upload_locked',
      uploadBodyTooSlow: 'upload_body_too_slow',
      rangeNotSatisfiable: 'range_not_satisfiable',
    });
  });

  it('reports a code the catalogue lacks', () => {
    const sample = [
      "throw ProblemException.of(FILE_ERRORS.fileNameTaken, 'x');",
      'throw ProblemException.of(USER_ERRORS.noSuchKey);',
      "sendProblem(res, { entry: GATEWAY_ERRORS.unknownHost, detail: 'x' }, id);",
      "sendProblem(res, { entry: GATEWAY_ERRORS.noSuchHost, detail: 'x' }, id);",
      "const body = problemBody(status, ERROR_CODES.noSuchCode, 'x', id);",
      'throw ProblemException.of(entry, detail);',
    ].join('\n');
    expect(codeSites('sample.ts', sample)).toHaveLength(6);
    expect(problemsOf(codeSites('sample.ts', sample)).sort()).toEqual([
      'sample.ts: ERROR_CODES.noSuchCode is not in the error catalogue',
      'sample.ts: GATEWAY_ERRORS.noSuchHost is not in the error catalogue',
      'sample.ts: USER_ERRORS.noSuchKey is not in the error catalogue',
    ]);
  });

  it('holds every code the services, the gateway and the libraries put in a problem body', () => {
    const sites = projectSources().flatMap((path) => codeSites(relative(ROOT, path), readFileSync(path, 'utf8')));
    const resolved = sites.filter((s) => resolveCode(s.expression) !== null);
    // the scan must see the known throwers, or it checks nothing
    for (const dir of [
      'apps/gateway/',
      'apps/developer-service/',
      'apps/user-service/',
      'apps/records-service/',
      'libs/platform/',
    ]) {
      expect(resolved.some((s) => s.file.startsWith(dir))).toBe(true);
    }
    expect(problemsOf(sites)).toEqual([]);
  });

  it('is documented in docs/errors.md: every code in a table row with its status', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const rows = new Map<string, string>();
    for (const m of doc.matchAll(/^\| `([a-z0-9_]+)` \| (\d{3}) \|/gm)) rows.set(m[1], m[2]);
    const missing = ERROR_CATALOGUE.filter((e) => rows.get(e.code) !== String(e.status)).map((e) => e.code);
    expect(missing).toEqual([]);
    expect([...rows.keys()].filter((code) => !isErrorCode(code))).toEqual([]);
  });
});
