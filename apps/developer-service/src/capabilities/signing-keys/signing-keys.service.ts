import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { JwksDocument } from '@vault/contracts';
import { DeveloperEnv } from '../../config/developer.env';
import { ActiveSigningKey, KeyRing } from './key-ring';
import { KeyRotation, RotationOutcome } from './key-rotation';

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
 * deleted. Every SIGNING_KEY_CHECK_SECONDS each replica runs the check (KeyRotation,
 * under a PostgreSQL advisory lock, so one replica creates, switches or deletes, the
 * others find it done) and reloads the keys (KeyRing).
 */
@Injectable()
export class SigningKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('SigningKeys');
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    private readonly env: DeveloperEnv,
    private readonly rotation: KeyRotation,
    private readonly ring: KeyRing,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.rotation.ensureActiveKey();
    await this.check();
    this.logger.log(`signing with key ${this.activeKey().kid}`);
    this.timer = setInterval(() => {
      this.check().catch((e: unknown) => this.logger.warn(`signing key check failed: ${String(e)}`));
    }, this.env.SIGNING_KEY_CHECK_SECONDS * 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The key tokens are signed with now. */
  activeKey(): ActiveSigningKey {
    return this.ring.activeKey();
  }

  /** The JWKS: every key a valid token may name. */
  publicKeys(): JwksDocument {
    return this.ring.publicKeys();
  }

  /** Rotates when due (one replica at a time) and reloads the keys; runs one at a time per process. */
  check(): Promise<void> {
    this.checking ??= (async () => {
      try {
        this.log(await this.rotation.rotate());
        await this.ring.reload();
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }

  private log(outcome: RotationOutcome): void {
    if (outcome.created) {
      const from = new Date(Date.now() + this.env.SIGNING_KEY_PUBLISH_LEAD_SECONDS * 1000).toISOString();
      this.logger.log(`created signing key ${outcome.created}, published now, signing from ${from}`);
    }
    if (outcome.activated) this.logger.log(`signing key ${outcome.activated} took over from ${outcome.retired}`);
    for (const kid of outcome.removed) {
      this.logger.log(`retired signing key ${kid} left the JWKS (its last token has expired)`);
    }
  }
}
