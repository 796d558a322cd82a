import { Injectable } from '@nestjs/common';
import type { AccountSettingsDto, Principal } from '@vault/contracts';
import { IfMatchCondition } from '@vault/platform/http';
import { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { SettingsEntity } from '../../persistence/settings/settings.entity';
import { SettingsRepository } from '../../persistence/settings/settings.repository';
import { settingsNotFound } from './settings.errors';
import { settingsETag } from './settings.view';

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
