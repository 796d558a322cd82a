import { Injectable } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import { AccessService } from '../../../capabilities/access/access.service';
import { parseRule, type ParsedRule } from '../../../capabilities/access/roles';
import { QuotaService } from '../../../capabilities/plans/quota.service';

const UPLOADER = parseRule('record:editor') as ParsedRule;

/** What tus discovery (OPTIONS) tells a caller beyond the protocol's own headers. */
@Injectable()
export class TusDiscoveryService {
  constructor(
    private readonly access: AccessService,
    private readonly quota: QuotaService,
  ) {}

  /**
   * `Tus-Max-Size` for this caller on this record: the largest upload it may create now,
   * the plan's vault.maxUploadMBs or the vault's room left, whichever is smaller. Nothing
   * for an anonymous caller or one that may not upload to the record (it learns nothing).
   */
  async maxSizeFor(principal: Principal | undefined, vaultId: string, recordId: string): Promise<number | undefined> {
    if (!principal) return undefined;
    try {
      await this.access.authorize(principal, UPLOADER, vaultId, recordId);
    } catch (err) {
      if (err instanceof ProblemException) return undefined;
      throw err;
    }
    const limits = await this.quota.uploadLimits(vaultId);
    return Math.min(limits.maxUploadBytes, limits.quotaRemainingBytes);
  }
}
