import { Injectable, Logger } from '@nestjs/common';
import { DEVELOPER_ERRORS, SignInResponseDto } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { DeveloperEnv } from '../../config/developer.env';
import { LockedToken, RefreshTokenRepository } from '../../persistence/refresh-tokens/refresh-token.repository';
import { DirectoryService } from '../directory/directory.service';
import { openIdOf, TokenSigner, TokenSubject } from '../tokens/token-signer.service';
import { hashRefreshToken, hasRefreshTokenShape, newRefreshToken } from './refresh-token-value';

/** Why a refresh token obtained nothing (the caller answers them all alike: invalid_grant). */
export type RefreshRefusal = 'unknown' | 'other_application' | 'expired' | 'revoked' | 'reused' | 'account_deleted';

/** A refresh token that obtains nothing; `reason` is for the log, never for the client. */
export class RefreshRefused extends Error {
  constructor(readonly reason: RefreshRefusal) {
    super(`refresh token refused: ${reason}`);
  }
}

type Rotation = { grant: SignInResponseDto } | { refused: RefreshRefusal };

/**
 * Refresh tokens (docs/developer-api.md, "Refresh tokens"): a sign-in starts a family bound
 * to tenant, application and user; each use of a token spends it and answers a new access
 * token and a new refresh token of the same family; a second use of a spent token revokes
 * the family. Tokens are stored as their SHA-256 only.
 */
@Injectable()
export class RefreshTokensService {
  private readonly logger = new Logger('RefreshTokens');

  constructor(
    private readonly env: DeveloperEnv,
    private readonly repository: RefreshTokenRepository,
    private readonly signer: TokenSigner,
    private readonly directory: DirectoryService,
  ) {}

  /** The answer to a sign-in: an access token and the first refresh token of a new family. */
  async signIn(subject: TokenSubject): Promise<SignInResponseDto> {
    const signed = await this.signer.sign(subject);
    const familyId = randomUUID();
    const refreshToken = newRefreshToken();
    await this.repository.transaction(async (tx) => {
      await this.repository.insertFamily(tx, {
        id: familyId,
        tenantId: subject.tenantId,
        clientId: subject.clientId,
        userId: subject.userId,
        openId: openIdOf(subject.userId),
        ttlSeconds: this.env.REFRESH_TOKEN_FAMILY_TTL_SECONDS,
        // the sign-in token's own auth_time, which the family's refreshed tokens repeat
        signedInAt: signed.authTime ?? Math.floor(Date.now() / 1000),
      });
      await this.insertToken(tx, familyId, refreshToken, signed.tokenId);
    });
    void this.repository.pruneExpired().catch((err) => this.logger.warn(`pruning expired families failed: ${err}`));
    return grant(signed, refreshToken);
  }

  /**
   * Spends `presented` for a new access token and a new refresh token, when it was issued
   * through this tenant's application `clientId` and is neither expired, revoked nor spent.
   * A spent one revokes its family (committed before the refusal). Throws RefreshRefused.
   */
  async rotate(tenantId: string, clientId: string, presented: string): Promise<SignInResponseDto> {
    if (!hasRefreshTokenShape(presented)) throw new RefreshRefused('unknown');
    const hash = hashRefreshToken(presented);
    const outcome = await this.repository.transaction(async (tx): Promise<Rotation> => {
      const token = await this.repository.lockByHash(tx, hash);
      if (!token) return { refused: 'unknown' };
      const refusal = refusalOf(token, tenantId, clientId);
      if (refusal === 'reused') await this.repository.revokeFamily(tx, token.familyId, 'reuse');
      if (refusal) return { refused: refusal };
      return this.spend(tx, hash, token);
    });
    if ('refused' in outcome) {
      this.logger.debug(`refresh refused for ${tenantId}/${clientId}: ${outcome.refused}`);
      throw new RefreshRefused(outcome.refused);
    }
    return outcome.grant;
  }

  /**
   * A user's password changed: every refresh-token family of the user (all applications) is
   * revoked in `tx`, the transaction that stores the new password. The bootstrap file calls it
   * today; a password-change route would call it the same way.
   */
  passwordChanged(tx: EntityManager, tenantId: string, userId: string): Promise<number> {
    return this.repository.revokeIdentity(tx, { tenantId, openId: openIdOf(userId) }, 'password_changed');
  }

  /** Marks the token spent and answers its successor (the family revoked when its identity is closed). */
  private async spend(tx: EntityManager, hash: Buffer, token: LockedToken): Promise<Rotation> {
    const user = await this.directory.findUserById(token.tenantId, token.userId);
    if (!user) return { refused: 'unknown' };
    let signed;
    try {
      signed = await this.signer.sign({
        userId: user.id,
        username: user.username,
        roles: user.roles,
        tenantId: token.tenantId,
        clientId: token.clientId,
        // a refreshed token tells when its family's sign-in was, not when it was refreshed
        authTime: token.signedInAt,
      });
    } catch (err) {
      if (!(err instanceof ProblemException && err.code === DEVELOPER_ERRORS.accountDeleted.code)) throw err;
      await this.repository.revokeFamily(tx, token.familyId, 'account_deleted');
      return { refused: 'account_deleted' };
    }
    await this.repository.markSpent(tx, hash);
    const next = newRefreshToken();
    await this.insertToken(tx, token.familyId, next, signed.tokenId);
    return { grant: grant(signed, next) };
  }

  private insertToken(tx: EntityManager, familyId: string, token: string, accessTokenId: string): Promise<void> {
    return this.repository.insertToken(tx, {
      tokenHash: hashRefreshToken(token),
      familyId,
      accessTokenId,
      ttlSeconds: this.env.REFRESH_TOKEN_TTL_SECONDS,
    });
  }
}

/** Why `token` obtains nothing at `tenantId`/`clientId`, or undefined when it may be spent. */
function refusalOf(token: LockedToken, tenantId: string, clientId: string): RefreshRefusal | undefined {
  // Another application's token is refused without touching it: its family stays as it is.
  if (token.tenantId !== tenantId || token.clientId !== clientId) return 'other_application';
  if (token.revoked) return 'revoked';
  if (token.expired) return 'expired';
  if (token.spent) return 'reused';
  return undefined;
}

function grant(signed: { accessToken: string; expiresIn: number }, refreshToken: string): SignInResponseDto {
  return { access_token: signed.accessToken, token_type: 'Bearer', expires_in: signed.expiresIn, refresh_token: refreshToken };
}
