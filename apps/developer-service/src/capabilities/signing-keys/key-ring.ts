import { Injectable, Logger } from '@nestjs/common';
import { JwksDocument, PublicSigningJwk } from '@vault/contracts';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { DeveloperEnv } from '../../config/developer.env';
import { SigningKeyEntity } from '../../persistence/signing-keys/signing-key.entity';
import { SigningKeyRepository } from '../../persistence/signing-keys/signing-key.repository';
import { PrivateKeySealer } from '../key-encryption/private-key-sealer';

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

/**
 * The stored keys as this replica holds them in memory, private halves opened once per
 * kid: which one signs now, which ones the JWKS publishes. Times are this host's clock,
 * so every replica switches at the instant the rows name.
 */
@Injectable()
export class KeyRing {
  private readonly logger = new Logger('SigningKeys');
  private loaded: LoadedKey[] = [];

  constructor(
    private readonly env: DeveloperEnv,
    private readonly keys: SigningKeyRepository,
    private readonly sealer: PrivateKeySealer,
  ) {}

  /** The key tokens are signed with now: the published key that activated last. */
  activeKey(): ActiveSigningKey {
    const now = Date.now();
    let best: LoadedKey | undefined;
    for (const k of this.loaded) {
      if (k.activatesAt <= now && (!best || k.activatesAt > best.activatesAt)) best = k;
    }
    best ??= this.loaded[0];
    return { kid: best.kid, privateKey: best.privateKey };
  }

  /** Every key a valid token may name: the next key (before it signs), the active one, and retired ones until their tokens expire. */
  publicKeys(): JwksDocument {
    const now = Date.now();
    return { keys: this.loaded.filter((k) => k.publishedUntil > now).map((k) => k.jwk) };
  }

  /** Reads every stored key; a private key is opened only the first time its kid is seen. */
  async reload(): Promise<void> {
    const retainMs = (this.env.TOKEN_TTL_SECONDS + this.env.SIGNING_KEY_CLOCK_SKEW_SECONDS) * 1000;
    const rows = await this.keys.list('DESC');
    const previous = new Map(this.loaded.map((k) => [k.kid, k]));
    const loaded: LoadedKey[] = [];
    for (const row of rows) {
      loaded.push({
        kid: row.kid,
        privateKey: previous.get(row.kid)?.privateKey ?? (await this.openPrivateKey(row)),
        activatesAt: row.activatesAt.getTime(),
        publishedUntil: row.retiredAt ? row.retiredAt.getTime() + retainMs : Number.POSITIVE_INFINITY,
        jwk: publicJwk(row),
      });
    }
    this.loaded = loaded;
  }

  /** Opens the private key; a key stored in plain is encrypted in place once a secret is configured. */
  private async openPrivateKey(row: SigningKeyEntity): Promise<CryptoKey> {
    const json = this.sealer.open(row);
    if (!row.encrypted && this.sealer.enabled) {
      await this.keys.storeEncrypted(row.kid, this.sealer.seal(row.kid, json).privateJwk);
      this.logger.log(`signing key ${row.kid} is now stored encrypted`);
    }
    return (await importJWK(JSON.parse(json) as JWK, row.alg)) as CryptoKey;
  }
}

function publicJwk(k: SigningKeyEntity): PublicSigningJwk {
  const { kty, crv, x, y } = k.publicJwk;
  return { kty: kty as string, crv, x, y, kid: k.kid, alg: k.alg, use: 'sig' };
}
