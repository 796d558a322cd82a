import { Injectable } from '@nestjs/common';
import type { AccountSettingsDto, Principal, SettingsResponse } from '@vault/contracts';
import { IfMatchCondition, versionETag } from '@vault/platform';
import { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { SettingsEntity, settingsFields } from '../../persistence/settings/settings.entity';
import { SettingsRepository } from '../../persistence/settings/settings.repository';
import { settingsNotFound } from './settings.errors';

/** The ETag of the settings' stored version (`__v`). */
export const settingsETag = (s: SettingsEntity): string => versionETag(s.id, s.revision);

export function toSettingsResponse(s: SettingsEntity): SettingsResponse {
  return {
    id: s.id,
    _id: s.id,
    account: s.accountId,
    ...settingsFields(s),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    __v: s.revision,
  };
}

/** Settings of the caller's account. */
@Injectable()
export class SettingsService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly own: OwnAccountService,
  ) {}

  async get(p: Principal, id: string): Promise<SettingsEntity> {
    const account = await this.own.ownById(p, id);
    const settings = await this.settings.findFor(account.id);
    if (!settings) throw settingsNotFound();
    return settings;
  }

  /**
   * Replaces all six fields (creating the row if it is missing). Every settings write
   * holds the account's row lock, so `ifMatch` is checked against a version that cannot
   * change before the commit.
   */
  async replace(p: Principal, id: string, dto: AccountSettingsDto, ifMatch = IfMatchCondition.absent): Promise<SettingsEntity> {
    let saved!: SettingsEntity;
    await this.own.mutate(p, id, async (account, tx) => {
      const stored = await this.settings.findFor(account.id, tx);
      ifMatch.assert(stored ? settingsETag(stored) : null);
      saved = await this.settings.replace(tx, account.id, stored, dto);
    });
    return saved;
  }
}
