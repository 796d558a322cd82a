import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import { RevocationService } from '@vault/platform/auth';
import { IfMatchCondition } from '@vault/platform/http';
import { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { MfaCodeRepository } from '../../persistence/mfa-codes/mfa-code.repository';
import { SettingsRepository } from '../../persistence/settings/settings.repository';

/**
 * `DELETE /accounts/account-id/{id}`: the holder deletes its own account. In one
 * transaction: the account is deactivated and erased (OwnAccountService.delete, with
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
    private readonly own: OwnAccountService,
    private readonly settings: SettingsRepository,
    private readonly mfaCodes: MfaCodeRepository,
    private readonly revocations: RevocationService,
  ) {}

  async delete(p: Principal, id: string, ifMatch: IfMatchCondition): Promise<void> {
    let revoked = false;
    try {
      await this.own.delete(p, id, ifMatch, async (account, tx) => {
        await this.settings.deleteFor(tx, account.id);
        await this.mfaCodes.deleteFor(tx, account.id);
        // every token of the identity, the presented one included: a deleted account signs in no more
        await this.revocations.revokeIdentity(p.tenantId, p.openId);
        revoked = true;
      });
    } catch (err) {
      // The account was not deleted (the commit failed): it keeps its tokens.
      if (revoked) {
        await this.revocations
          .withdrawIdentity(p.tenantId, p.openId)
          .catch((e) => this.logger.error(`identity revocation not withdrawn: ${e}`));
      }
      throw err;
    }
  }
}
