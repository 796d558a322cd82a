import { INestApplication } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { DEFAULT_TOKEN_AUDIENCE, TOKEN_SIGNING_ALGORITHM } from '@vault/contracts';
import { configureApp } from '@vault/platform/bootstrap';
import { TEST_ISSUER } from '@vault/platform/testing';
import { createRemoteJWKSet, jwtVerify, JWTVerifyResult } from 'jose';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../src/app/app.module';

export const API = '/api/v1';
export const appPath = (tenantId: string, clientId: string) =>
  `${API}/tenant/tenant-id/${tenantId}/applications/client-id/${clientId}`;

/** Writes a bootstrap file into a fresh temporary folder and returns its path. */
export function writeBootstrapFile(content: unknown, dir = mkdtempSync(join(tmpdir(), 'vault-bootstrap-'))): string {
  const path = join(dir, 'bootstrap.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** Env shared by the suites: unset optional variables so one suite's values never leak into another. */
export function baseEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DB_MIGRATE_ON_START: 'true',
    VAULT_BOOTSTRAP_FILE: '',
    KEY_ENCRYPTION_SECRET: '',
    TOKEN_ISSUER: '',
    TOKEN_AUDIENCE: '',
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: DEFAULT_TOKEN_AUDIENCE,
    AUTH_MAX_FAILURES: '',
    AUTH_MAX_FAILURES_PER_IP: '',
    AUTH_FAILURE_WINDOW_SECONDS: '',
    TOKEN_TTL_SECONDS: '',
    REFRESH_TOKEN_TTL_SECONDS: '',
    REFRESH_TOKEN_FAMILY_TTL_SECONDS: '',
    SIGNING_KEY_ROTATION_DAYS: '',
    SIGNING_KEY_PUBLISH_LEAD_SECONDS: '',
    SIGNING_KEY_CLOCK_SKEW_SECONDS: '',
    SIGNING_KEY_CHECK_SECONDS: '',
    TRUSTED_PROXIES: '',
  };
}

/** Verifies a token the way a service does: keys from the app's JWKS endpoint, ES256 pinned, iss/aud/exp. */
export async function verifyWithJwks(app: INestApplication, token: string): Promise<JWTVerifyResult> {
  const jwks = createRemoteJWKSet(new URL(`${await app.getUrl()}${API}/.well-known/jwks.json`));
  return jwtVerify(token, jwks, {
    algorithms: [TOKEN_SIGNING_ALGORITHM],
    issuer: TEST_ISSUER,
    audience: DEFAULT_TOKEN_AUDIENCE,
  });
}

/** Boots the app with an env expected to be refused and returns the boot error (closing what started). */
export async function bootFailure(env: Record<string, string>): Promise<Error> {
  Object.assign(process.env, { NODE_ENV: 'test', LOG_LEVEL: 'error', ...env });
  let ref: TestingModule;
  try {
    // The configuration is validated here, when its provider is made.
    ref = await Test.createTestingModule({ imports: [AppModule] }).compile();
  } catch (e) {
    return e as Error;
  }
  const app = ref.createNestApplication({ logger: false });
  configureApp(app, { title: 'test', description: 'test' });
  try {
    await app.init();
  } catch (e) {
    await app.close().catch(() => undefined);
    return e as Error;
  }
  await app.close();
  throw new Error('the app booted although its configuration is invalid');
}
