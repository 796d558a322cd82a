import {
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import {
  JwksDocument,
  PublicSigningJwk,
  TOKEN_SIGNING_ALGORITHM,
} from '@vault/contracts';
import { EnvValidationError } from '@vault/platform';
import {
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { DeveloperEnv } from '../../config/developer.env';
import {
  decryptPrivateKey,
  encryptPrivateKey,
  KeyDecryptionError,
} from '../key-encryption/key-encryption';
import { SigningKeyEntity } from '../../persistence/signing-keys/signing-key.entity';
import { SigningKeyRepository } from '../../persistence/signing-keys/signing-key.repository';

const DAY_MS = 86_400_000;
/** The verifiers' background JWKS refresh (JWKS_REFRESH_INTERVAL_MS of libs/platform/src/auth/jwks-key-store.ts). */
const VERIFIER_JWKS_REFRESH_SECONDS = 300;

export interface ActiveSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

interface LoadedKey extends ActiveSigningKey {
  activatesAt: number;
  /** When it leaves the JWKS (retired_at + token lifetime + clock skew); Infinity while not retired. */
  publishedUntil: number;
  jwk: PublicSigningJwk;
}

/** What one rotation check did (for logs and tests). */
export interface RotationOutcome {
  created?: string;
  activated?: string;
  retired?: string;
  removed: string[];
}

/**
 * The platform's token signing keys: ES256 pairs kept in the database (private half
 * encrypted when KEY_ENCRYPTION_SECRET is set), so tokens stay valid across restarts
 * and every replica signs with the same key.
 *
 * Rotation on a schedule (SIGNING_KEY_ROTATION_DAYS): SIGNING_KEY_PUBLISH_LEAD_SECONDS
 * before the active key's time is up, a new key is created with `activates_at` in the
 * future: it is published in the JWKS at once and every replica starts signing with it
 * at that instant. The old key stays published until its last token has expired
 * (TOKEN_TTL_SECONDS + SIGNING_KEY_CLOCK_SKEW_SECONDS after the switch), then it is
 * deleted. Every SIGNING_KEY_CHECK_SECONDS each replica runs the check under a
 * PostgreSQL advisory lock (so one replica creates, switches or deletes, the others
 * find it done) and reloads the keys.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('SigningKeys');
  private loaded: LoadedKey[] = [];
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    private readonly env: DeveloperEnv,
    private readonly keys: SigningKeyRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    const lead = this.env.SIGNING_KEY_PUBLISH_LEAD_SECONDS;
    const floor =
      VERIFIER_JWKS_REFRESH_SECONDS + this.env.SIGNING_KEY_CHECK_SECONDS;
    if (this.env.SIGNING_KEY_ROTATION_DAYS > 0 && lead < floor) {
      throw new EnvValidationError([
        `SIGNING_KEY_PUBLISH_LEAD_SECONDS: must be at least ${floor} (the verifiers' JWKS refresh of ${VERIFIER_JWKS_REFRESH_SECONDS} s plus SIGNING_KEY_CHECK_SECONDS), got ${lead}`,
      ]);
    }
    await this.keys.underKeyLock(async (m) => {
      if (!(await this.keys.hasActive(m))) await this.create(m, new Date());
    });
    await this.check();
    this.logger.log(`signing with key ${this.activeKey().kid}`);
    this.timer = setInterval(() => {
      this.check().catch((e: unknown) =>
        this.logger.warn(`signing key check failed: ${String(e)}`),
      );
    }, this.env.SIGNING_KEY_CHECK_SECONDS * 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The key tokens are signed with now: the published key that activated last. */
  activeKey(): ActiveSigningKey {
    const now = Date.now();
    let best: LoadedKey | undefined;
    for (const k of this.loaded) {
      if (k.activatesAt <= now && (!best || k.activatesAt > best.activatesAt))
        best = k;
    }
    best ??= this.loaded[0];
    return { kid: best.kid, privateKey: best.privateKey };
  }

  /** Every key a valid token may name: the next key (before it signs), the active one, and retired ones until their tokens expire. */
  publicKeys(): JwksDocument {
    const now = Date.now();
    return {
      keys: this.loaded.filter((k) => k.publishedUntil > now).map((k) => k.jwk),
    };
  }

  /** Rotates when due (one replica at a time) and reloads the keys; runs one at a time per process. */
  check(): Promise<void> {
    this.checking ??= (async () => {
      try {
        const outcome = await this.rotate();
        if (outcome.created)
          this.logger.log(
            `created signing key ${outcome.created}, published now, signing from ${new Date(Date.now() + this.env.SIGNING_KEY_PUBLISH_LEAD_SECONDS * 1000).toISOString()}`,
          );
        if (outcome.activated)
          this.logger.log(
            `signing key ${outcome.activated} took over from ${outcome.retired}`,
          );
        for (const kid of outcome.removed)
          this.logger.log(
            `retired signing key ${kid} left the JWKS (its last token has expired)`,
          );
        await this.reload();
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }

  /**
   * One rotation step under the advisory lock, on the database clock: create the next
   * key when the active one is due (publish lead before its time is up), switch to the
   * next key once its time has come, delete retired keys whose tokens have all expired.
   */
  async rotate(): Promise<RotationOutcome> {
    const retainSeconds =
      this.env.TOKEN_TTL_SECONDS + this.env.SIGNING_KEY_CLOCK_SKEW_SECONDS;
    return this.keys.underKeyLock(async (m) => {
      const outcome: RotationOutcome = { removed: [] };
      const now = await this.keys.databaseNow(m);
      const rows = await this.keys.list('ASC', m);
      const active = rows.find((r) => r.active);
      let next = rows.find((r) => !r.active && !r.retiredAt);
      const days = this.env.SIGNING_KEY_ROTATION_DAYS;
      if (active && !next && days > 0) {
        const due = active.activatesAt.getTime() + days * DAY_MS;
        const lead = this.env.SIGNING_KEY_PUBLISH_LEAD_SECONDS * 1000;
        if (due - lead <= now.getTime()) {
          next = await this.create(
            m,
            new Date(Math.max(due, now.getTime() + lead)),
            false,
          );
          outcome.created = next.kid;
        }
      }
      if (active && next && next.activatesAt.getTime() <= now.getTime()) {
        await this.keys.handOver(m, active, next);
        outcome.activated = next.kid;
        outcome.retired = active.kid;
      }
      outcome.removed = await this.keys.deleteRetiredBefore(m, retainSeconds);
      return outcome;
    });
  }

  /** Reads every stored key; private keys are opened once per kid. */
  private async reload(): Promise<void> {
    const retainMs =
      (this.env.TOKEN_TTL_SECONDS + this.env.SIGNING_KEY_CLOCK_SKEW_SECONDS) *
      1000;
    const rows = await this.keys.list('DESC');
    const previous = new Map(this.loaded.map((k) => [k.kid, k]));
    const loaded: LoadedKey[] = [];
    for (const row of rows) {
      const publishedUntil = row.retiredAt
        ? row.retiredAt.getTime() + retainMs
        : Number.POSITIVE_INFINITY;
      loaded.push({
        kid: row.kid,
        privateKey:
          previous.get(row.kid)?.privateKey ?? (await this.openPrivateKey(row)),
        activatesAt: row.activatesAt.getTime(),
        publishedUntil,
        jwk: publicJwk(row),
      });
    }
    this.loaded = loaded;
  }

  private async create(
    m: EntityManager,
    activatesAt: Date,
    active = true,
  ): Promise<SigningKeyEntity> {
    const kid = randomUUID();
    const pair = await generateKeyPair(TOKEN_SIGNING_ALGORITHM, {
      extractable: true,
    });
    const privateJson = JSON.stringify(await exportJWK(pair.privateKey));
    const secret = this.env.KEY_ENCRYPTION_SECRET;
    const row = await this.keys.insert(m, {
      kid,
      alg: TOKEN_SIGNING_ALGORITHM,
      publicJwk: await exportJWK(pair.publicKey),
      privateJwk: secret
        ? encryptPrivateKey(privateJson, secret, kid)
        : privateJson,
      encrypted: Boolean(secret),
      active,
      activatesAt,
      retiredAt: null,
    });
    this.logger.log(
      `created signing key ${kid}${secret ? ' (stored encrypted)' : ''}`,
    );
    return row;
  }

  /** Decrypts (or parses) the private key; encrypts a plain stored key once a secret is configured. */
  private async openPrivateKey(row: SigningKeyEntity): Promise<CryptoKey> {
    const secret = this.env.KEY_ENCRYPTION_SECRET;
    let json: string;
    if (row.encrypted) {
      if (!secret) {
        throw new EnvValidationError([
          `KEY_ENCRYPTION_SECRET: required, the stored signing key ${row.kid} is encrypted`,
        ]);
      }
      try {
        json = decryptPrivateKey(row.privateJwk, secret, row.kid);
      } catch (e) {
        if (e instanceof KeyDecryptionError) {
          throw new EnvValidationError([
            `KEY_ENCRYPTION_SECRET: ${e.message} (key ${row.kid})`,
          ]);
        }
        throw e;
      }
    } else {
      json = row.privateJwk;
      if (secret) {
        await this.keys.storeEncrypted(row.kid, encryptPrivateKey(json, secret, row.kid));
        this.logger.log(`signing key ${row.kid} is now stored encrypted`);
      }
    }
    return (await importJWK(JSON.parse(json) as JWK, row.alg)) as CryptoKey;
  }
}

function publicJwk(k: SigningKeyEntity): PublicSigningJwk {
  const { kty, crv, x, y } = k.publicJwk;
  return { kty: kty as string, crv, x, y, kid: k.kid, alg: k.alg, use: 'sig' };
}
