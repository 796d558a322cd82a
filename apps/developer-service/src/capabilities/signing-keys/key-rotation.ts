import { Injectable, Logger } from '@nestjs/common';
import { TOKEN_SIGNING_ALGORITHM } from '@vault/contracts';
import { exportJWK, generateKeyPair } from 'jose';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { DeveloperEnv } from '../../config/developer.env';
import { SigningKeyEntity } from '../../persistence/signing-keys/signing-key.entity';
import { SigningKeyRepository } from '../../persistence/signing-keys/signing-key.repository';
import { PrivateKeySealer } from '../key-encryption/private-key-sealer';

const DAY_MS = 86_400_000;

/** What one rotation check did (for logs and tests). */
export interface RotationOutcome {
  created?: string;
  activated?: string;
  retired?: string;
  removed: string[];
}

/**
 * The rules of the stored keys' life, each step under the key lock and on the database
 * clock, so that of replicas checking together one acts and the others find it done:
 * the first key, the next key made a publish lead before the active one's time is up,
 * the switch when its time comes, the removal of a retired key once its tokens expired.
 */
@Injectable()
export class KeyRotation {
  private readonly logger = new Logger('SigningKeys');

  constructor(
    private readonly env: DeveloperEnv,
    private readonly keys: SigningKeyRepository,
    private readonly sealer: PrivateKeySealer,
  ) {}

  /** Creates a key that signs at once when none is active (a new database). */
  ensureActiveKey(): Promise<void> {
    return this.keys.underKeyLock(async (tx) => {
      if (!(await this.keys.hasActive(tx))) await this.create(tx, new Date(), true);
    });
  }

  /**
   * One rotation step: create the next key when the active one is due (publish lead
   * before its time is up), switch to the next key once its time has come, delete
   * retired keys whose tokens have all expired.
   */
  rotate(): Promise<RotationOutcome> {
    const retainSeconds = this.env.TOKEN_TTL_SECONDS + this.env.SIGNING_KEY_CLOCK_SKEW_SECONDS;
    return this.keys.underKeyLock(async (tx) => {
      const outcome: RotationOutcome = { removed: [] };
      const now = (await this.keys.databaseNow(tx)).getTime();
      const rows = await this.keys.list('ASC', tx);
      const active = rows.find((r) => r.active);
      let next = rows.find((r) => !r.active && !r.retiredAt);
      const startsAt = active && !next ? this.nextKeyStart(active, now) : undefined;
      if (startsAt) {
        next = await this.create(tx, startsAt, false);
        outcome.created = next.kid;
      }
      if (active && next && next.activatesAt.getTime() <= now) {
        await this.keys.handOver(tx, active, next);
        outcome.activated = next.kid;
        outcome.retired = active.kid;
      }
      outcome.removed = await this.keys.deleteRetiredBefore(tx, retainSeconds);
      return outcome;
    });
  }

  /**
   * When the next key must start signing, if it is time to make it: the active key's
   * days are up, at least the publish lead from `now`. Undefined while not due yet or
   * without scheduled rotation.
   */
  private nextKeyStart(active: SigningKeyEntity, now: number): Date | undefined {
    const days = this.env.SIGNING_KEY_ROTATION_DAYS;
    if (days === 0) return undefined;
    const due = active.activatesAt.getTime() + days * DAY_MS;
    const lead = this.env.SIGNING_KEY_PUBLISH_LEAD_SECONDS * 1000;
    return due - lead <= now ? new Date(Math.max(due, now + lead)) : undefined;
  }

  /** A new ES256 pair, its private half sealed, stored to sign from `activatesAt`. */
  private async create(tx: EntityManager, activatesAt: Date, active: boolean): Promise<SigningKeyEntity> {
    const kid = randomUUID();
    const pair = await generateKeyPair(TOKEN_SIGNING_ALGORITHM, { extractable: true });
    const row = await this.keys.insert(tx, {
      kid,
      alg: TOKEN_SIGNING_ALGORITHM,
      publicJwk: await exportJWK(pair.publicKey),
      ...this.sealer.seal(kid, JSON.stringify(await exportJWK(pair.privateKey))),
      active,
      activatesAt,
      retiredAt: null,
    });
    this.logger.log(`created signing key ${kid}${this.sealer.enabled ? ' (stored encrypted)' : ''}`);
    return row;
  }
}
