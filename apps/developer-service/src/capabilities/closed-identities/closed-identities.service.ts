import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DEVELOPER_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { Repository } from 'typeorm';
import { ClosedIdentityEntity } from '../../persistence/closed-identities/closed-identity.entity';

/** 403 account_deleted: the identity deleted its account; no token is issued to it. */
export function accountDeleted(): ProblemException {
  return new ProblemException(
    403,
    DEVELOPER_ERROR_CODES.accountDeleted,
    'The account of this identity was deleted: it can no longer sign in.',
  );
}

/** Identities whose account was deleted (from the user module's account events). */
@Injectable()
export class ClosedIdentitiesService {
  constructor(@InjectRepository(ClosedIdentityEntity) private readonly closed: Repository<ClosedIdentityEntity>) {}

  /** Records a deleted account's identity; a repeated or backfilled event changes nothing. */
  async close(identity: ClosedIdentityEntity): Promise<void> {
    await this.closed.createQueryBuilder().insert().values(identity).orIgnore().execute();
  }

  /** Throws 403 account_deleted when the identity's account was deleted in the tenant. */
  async assertOpen(tenantId: string, openId: string): Promise<void> {
    if (await this.closed.existsBy({ tenantId, openId })) throw accountDeleted();
  }
}
