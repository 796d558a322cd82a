import { Injectable } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import { IfMatchCondition, RevocationService } from '@vault/platform';
import { AccountsService } from '../accounts/accounts.service';
import { MfaCodeEntity } from '../mfa/mfa-code.entity';
import { SettingsEntity } from '../settings/settings.entity';

/**
 * `DELETE /accounts/account-id/{id}`: the holder deletes its own account. In one
 * transaction: the account is deactivated and erased (AccountsService.delete, with
 * its `account.deleted` event), its settings and MFA codes are removed, and, last,
 * the presented token is revoked as by logout. A revocation that fails (NATS
 * unreachable: 503) rolls everything back; agreements stay as the record of the
 * consents given, unreachable with the account.
 */
@Injectable()
export class AccountDeletionService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly revocations: RevocationService,
  ) {}

  delete(p: Principal, id: string, ifMatch: IfMatchCondition): Promise<void> {
    return this.accounts.delete(p, id, ifMatch, async (account, m) => {
      await m.getRepository(SettingsEntity).delete({ accountId: account.id });
      await m.getRepository(MfaCodeEntity).delete({ accountId: account.id });
      await this.revocations.revoke(p.tokenId, p.expiresAt);
    });
  }
}
