import { Injectable, Logger } from '@nestjs/common';
import type { WebhookEntity } from '../../../persistence/webhooks/webhook.entity';
import { signingKeys } from '../signing';
import type { WebhooksEnv } from '../webhooks.env';
import { devKeyring } from './dev-keyring';
import { parseKeyring, SecretBox, SecretUnreadableError } from './secret-box';

/** Opened secrets kept in memory (the dispatcher signs every delivery of a subscription with the same ones). */
const CACHE_MAX = 10_000;

/** The keyring of WEBHOOK_SECRET_KEYS, or outside production when it is unset, the development one. */
export async function secretBoxOf(env: WebhooksEnv): Promise<SecretBox> {
  return new SecretBox(parseKeyring(env.WEBHOOK_SECRET_KEYS ?? (await devKeyring())));
}

/**
 * The signing secrets of webhook subscriptions as stored (encrypted under the keyring, each
 * bound to its webhook id; older rows may still hold plain text) and as used: opened only
 * to sign a delivery or to show a new secret once. Opened values are cached by webhook and
 * stored value, so a rotated or re-encrypted secret is opened afresh.
 */
@Injectable()
export class WebhookSecrets {
  private readonly logger = new Logger('WebhookSecrets');
  private readonly opened = new Map<string, string>();

  constructor(readonly box: SecretBox) {}

  /** The stored form of a new secret of webhook `webhookId`. */
  seal(plain: string, webhookId: string): string {
    return this.box.seal(plain, webhookId);
  }

  /** A stored secret of webhook `webhookId`, opened; throws SecretUnreadableError when it cannot be. */
  open(stored: string, webhookId: string): string {
    const key = `${webhookId}\n${stored}`;
    const hit = this.opened.get(key);
    if (hit !== undefined) return hit;
    const plain = this.box.open(stored, webhookId);
    if (this.opened.size >= CACHE_MAX) this.opened.delete(this.opened.keys().next().value as string);
    this.opened.set(key, plain);
    return plain;
  }

  /**
   * The secrets that sign now (signing.ts, signingKeys), opened. The current secret must open
   * (else SecretUnreadableError); a previous secret that does not is left out with a warning,
   * so that rotating the secret gets a subscription whose stored secret was lost signing again.
   */
  signingKeys(w: Pick<WebhookEntity, 'id' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now: Date): string[] {
    const [current, previous] = signingKeys(w, now);
    const keys = [this.open(current, w.id)];
    if (previous === undefined) return keys;
    try {
      keys.push(this.open(previous, w.id));
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      this.logger.warn(`webhook ${w.id}: previous secret left out of the signatures: ${err.message}`);
    }
    return keys;
  }
}
