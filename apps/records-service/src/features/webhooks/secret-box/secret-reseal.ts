import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SecretsToReseal, StoredSecrets, WebhookSecretRepository } from '../../../persistence/webhooks/webhook-secret.repository';
import { SecretUnreadableError } from './secret-box';
import { WebhookSecrets } from './webhook-secrets';

/** Subscriptions read and re-encrypted per statement. */
const BATCH = 200;
/** Below every UUID: the walk starts here. */
const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Brings every stored signing secret under the keyring's first key, in the background after
 * start: plain-text secrets from before encryption, and secrets sealed with a key that no
 * longer comes first (after a key rotation). Walks the subscriptions by id in batches; each
 * row is written only if it still holds what was read (so several instances doing it at once,
 * or a rotation meanwhile, lose nothing), which also makes a second run find nothing to do.
 * Each value is re-encrypted on its own: one that cannot be opened is left as it is and logged
 * (deliveries fail with the reason when it is the current secret). A previous secret whose
 * overlap has ended signs nothing any more: it is cleared rather than opened.
 */
@Injectable()
export class SecretReseal implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookSecrets');
  private stopping = false;
  private running?: Promise<void>;

  constructor(
    private readonly webhooks: WebhookSecretRepository,
    private readonly secrets: WebhookSecrets,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.run().then(
      () => undefined,
      (err) => this.logger.error(`re-encrypting webhook secrets stopped: ${err}`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** One walk over the subscriptions; answers how many rows it re-encrypted. */
  async run(): Promise<number> {
    const keyId = this.secrets.box.currentKeyId;
    let after = FIRST_ID;
    let resealed = 0;
    while (!this.stopping) {
      const batch = await this.webhooks.secretsToReseal(keyId, after, BATCH);
      if (batch.length === 0) break;
      after = batch[batch.length - 1].id;
      resealed += await this.webhooks.resealSecrets(batch.flatMap((from) => this.resealed(from)));
      if (batch.length < BATCH) break;
    }
    if (resealed > 0) this.logger.log(`${resealed} webhook subscription(s) had their secrets re-encrypted with key "${keyId}"`);
    return resealed;
  }

  /**
   * The row's values re-encrypted, each on its own: one that cannot be opened is left as it is
   * (and logged) without keeping the other from being re-encrypted. A previous secret that no
   * longer signs (its overlap has ended) is not opened: it is cleared. Nothing when nothing changes.
   */
  private resealed({ previousExpired, ...from }: SecretsToReseal): { from: StoredSecrets; to: StoredSecrets }[] {
    const previousSecret =
      from.previousSecret === null || previousExpired ? null : this.again(from.previousSecret, from.id, 'previous secret');
    const to = { id: from.id, secret: this.again(from.secret, from.id, 'secret'), previousSecret };
    return to.secret === from.secret && to.previousSecret === from.previousSecret ? [] : [{ from, to }];
  }

  /** A stored value sealed with the current key; as it is when already so, or when it cannot be opened. */
  private again(stored: string, webhookId: string, what: string): string {
    // The box itself, not the signing cache: these values are opened once, to be sealed again.
    const box = this.secrets.box;
    if (box.isCurrent(stored)) return stored;
    try {
      return box.seal(box.open(stored, webhookId), webhookId);
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      this.logger.error(`webhook ${webhookId}: ${what}: ${err.message}; left as it is`);
      return stored;
    }
  }
}
