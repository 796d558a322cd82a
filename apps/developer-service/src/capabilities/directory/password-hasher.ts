import { Injectable, OnModuleInit } from '@nestjs/common';
import * as argon2 from 'argon2';
import { randomBytes } from 'node:crypto';

/** argon2id parameters (OWASP: 19 MiB, 2 passes, 1 lane). Changing them rehashes at next bootstrap. */
const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

/**
 * Hashes and verifies client secrets and passwords with argon2id. Verification of
 * an unknown identity runs against a dummy hash of the same cost, so every
 * credential failure takes about as long as a real check.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummyHash!: string;

  async onModuleInit(): Promise<void> {
    this.dummyHash = await this.hash(randomBytes(32).toString('base64url'));
  }

  hash(plain: string): Promise<string> {
    return argon2.hash(plain, ARGON2_OPTIONS);
  }

  /** True when `plain` matches `hash`; with no hash, burns one verification and answers false. */
  async verify(hash: string | undefined, plain: string): Promise<boolean> {
    const ok = await argon2.verify(hash ?? this.dummyHash, plain).catch(() => false);
    return ok && hash !== undefined;
  }

  /** True when the stored hash no longer matches `plain` or uses outdated parameters. */
  async isStale(hash: string, plain: string): Promise<boolean> {
    if (!(await this.verify(hash, plain))) return true;
    try {
      return argon2.needsRehash(hash, ARGON2_OPTIONS);
    } catch {
      return true;
    }
  }
}
