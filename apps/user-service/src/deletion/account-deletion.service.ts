import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import { IfMatchCondition, RevocationService } from '@vault/platform';
import { AccountsService } from '../accounts/accounts.service';
import { MfaCodeEntity } from '../mfa/mfa-code.entity';
import { SettingsEntity } from '../settings/settings.entity';

/**
 * `DELETE /accounts/account-id/{id}`: the holder deletes its own account. In one
 * transaction: the account is deactivated and erased (AccountsService.delete, with
 * its `account.deleted` event), its settings and MFA codes are removed, and, last,
 * every token of the identity is revoked (the presented one included; the developer
 * module refuses it new tokens once the event reaches it). A revocation that fails (NATS
 * unreachable: 503) rolls everything back; agreements stay as the record of the
 * consents given, unreachable with the account.
 */
@Injectable()
export class AccountDeletionService {
  private readonly logger = new Logger('AccountDeletion');

  constructor(
    private readonly accounts: AccountsService,
    private readonly revocations: RevocationService,
  ) {}

  async delete(p: Principal, id: string, ifMatch: IfMatchCondition): Promise<void> {
    let revoked = false;
    try {
      await this.accounts.delete(p, id, ifMatch, async (account, m) => {
        await m.getRepository(SettingsEntity).delete({ accountId: account.id });
        await m.getRepository(MfaCodeEntity).delete({ accountId: account.id });
        // every token of the identity, the presented one included: a deleted account signs in no more
        await this.revocations.revokeIdentity(p.tenantId, p.openId);
        revoked = true;
      });
    } catch (err) {
      // The account was not deleted (the commit failed): it keeps its tokens.
      if (revoked) {
        await this.revocations.withdrawIdentity(p.tenantId, p.openId).catch((e) => this.logger.error(`identity revocation not withdrawn: ${e}`));
      }
      throw err;
    }
  }
}
