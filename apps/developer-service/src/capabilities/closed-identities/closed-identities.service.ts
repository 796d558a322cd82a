import { Injectable } from '@nestjs/common';
import { ClosedIdentityEntity } from '../../persistence/closed-identities/closed-identity.entity';
import { ClosedIdentityRepository } from '../../persistence/closed-identities/closed-identity.repository';
import { RefreshTokenRepository } from '../../persistence/refresh-tokens/refresh-token.repository';
import { accountDeleted } from './closed-identities.errors';

/** Identities whose account was deleted (from the user module's account events). */
@Injectable()
export class ClosedIdentitiesService {
  constructor(
    private readonly closed: ClosedIdentityRepository,
    private readonly refreshTokens: RefreshTokenRepository,
  ) {}

  /**
   * Records a deleted account's identity and revokes every refresh-token family of it, in
   * one transaction; a repeated or backfilled event changes nothing.
   */
  async close(identity: ClosedIdentityEntity): Promise<void> {
    await this.closed.transaction(async (tx) => {
      await this.closed.insertOnce(identity, tx);
      await this.refreshTokens.revokeIdentity(tx, { tenantId: identity.tenantId, openId: identity.openId }, 'account_deleted');
    });
  }

  /** Throws 403 account_deleted when the identity's account was deleted in the tenant. */
  async assertOpen(tenantId: string, openId: string): Promise<void> {
    if (await this.closed.exists(tenantId, openId)) throw accountDeleted();
  }
}
