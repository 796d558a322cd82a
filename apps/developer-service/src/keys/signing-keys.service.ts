import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
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
import { EntityManager, Repository } from 'typeorm';
import { DeveloperEnv } from '../config/developer.env';
import {
  decryptPrivateKey,
  encryptPrivateKey,
  KeyDecryptionError,
} from './key-encryption';
import { SigningKeyEntity } from './signing-key.entity';

/** Serialises key creation of replicas starting together (pg advisory lock key). */
const KEY_CREATION_LOCK = 0x76617532;

export interface ActiveSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/**
 * The platform's token signing key: an ES256 pair made at first start and kept in
 * the database (private half encrypted when KEY_ENCRYPTION_SECRET is set), so
 * tokens stay valid across restarts and every replica signs with the same key.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit {
  private readonly logger = new Logger('SigningKeys');
  private active!: ActiveSigningKey;
  private jwks!: JwksDocument;

  constructor(
    private readonly env: DeveloperEnv,
    @InjectRepository(SigningKeyEntity)
    private readonly keys: Repository<SigningKeyEntity>,
  ) {}

  async onModuleInit(): Promise<void> {
    const row = await this.keys.manager.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1)', [KEY_CREATION_LOCK]);
      return (
        (await m.findOne(SigningKeyEntity, { where: { active: true } })) ??
        this.create(m)
      );
    });
    this.active = { kid: row.kid, privateKey: await this.openPrivateKey(row) };
    const all = await this.keys.find({ order: { createdAt: 'DESC' } });
    this.jwks = { keys: all.map((k) => publicJwk(k)) };
    this.logger.log(`signing with key ${row.kid}`);
  }

  activeKey(): ActiveSigningKey {
    return this.active;
  }

  publicKeys(): JwksDocument {
    return this.jwks;
  }

  private async create(m: EntityManager): Promise<SigningKeyEntity> {
    const kid = randomUUID();
    const pair = await generateKeyPair(TOKEN_SIGNING_ALGORITHM, {
      extractable: true,
    });
    const privateJson = JSON.stringify(await exportJWK(pair.privateKey));
    const secret = this.env.KEY_ENCRYPTION_SECRET;
    const row = m.create(SigningKeyEntity, {
      kid,
      alg: TOKEN_SIGNING_ALGORITHM,
      publicJwk: await exportJWK(pair.publicKey),
      privateJwk: secret
        ? encryptPrivateKey(privateJson, secret, kid)
        : privateJson,
      encrypted: Boolean(secret),
      active: true,
    });
    await m.insert(SigningKeyEntity, row);
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
        await this.keys.update(
          { kid: row.kid },
          {
            privateJwk: encryptPrivateKey(json, secret, row.kid),
            encrypted: true,
          },
        );
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
