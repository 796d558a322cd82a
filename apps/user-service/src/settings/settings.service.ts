import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import type { AccountSettingsDto, Principal, SettingsResponse } from '@vault/contracts';
import { DEFAULT_LOCALE } from '@vault/contracts';
import { IfMatchCondition, ProblemException, versionETag } from '@vault/platform';
import { AccountsService } from '../accounts/accounts.service';
import { SettingsEntity } from './settings.entity';

type SettingsFields = Pick<
  SettingsEntity,
  'notificationMethod' | 'communicationLanguage' | 'preferredLanguage' | 'country' | 'mfaDisabled' | 'mfaMode'
>;

/** Settings of an account created without any (documented in docs/user-api.md). */
const DEFAULT_SETTINGS: SettingsFields = {
  notificationMethod: 'email',
  communicationLanguage: DEFAULT_LOCALE,
  preferredLanguage: DEFAULT_LOCALE,
  country: 'US',
  mfaDisabled: false,
  mfaMode: 'sometimes',
};

/** Only the six settings fields (of a body: never its read-only echoes). */
function fieldsOf(src: SettingsFields): SettingsFields {
  return {
    notificationMethod: src.notificationMethod,
    communicationLanguage: src.communicationLanguage,
    preferredLanguage: src.preferredLanguage,
    country: src.country,
    mfaDisabled: src.mfaDisabled,
    mfaMode: src.mfaMode,
  };
}

/** The ETag of the settings' stored version (`__v`). */
export const settingsETag = (s: SettingsEntity): string => versionETag(s.id, s.revision);

export function toSettingsResponse(s: SettingsEntity): SettingsResponse {
  return {
    id: s.id,
    _id: s.id,
    account: s.accountId,
    ...fieldsOf(s),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    __v: s.revision,
  };
}

@Injectable()
export class SettingsService {
  constructor(
    @InjectRepository(SettingsEntity) private readonly repo: Repository<SettingsEntity>,
    private readonly accounts: AccountsService,
  ) {}

  /** Stores the settings of a new account (inside its creation transaction). */
  async createFor(m: EntityManager, accountId: string, dto?: AccountSettingsDto): Promise<void> {
    await m.getRepository(SettingsEntity).insert({
      id: randomUUID(),
      accountId,
      ...(dto ? fieldsOf(dto) : DEFAULT_SETTINGS),
    });
  }

  async get(p: Principal, id: string): Promise<SettingsEntity> {
    const account = await this.accounts.ownById(p, id);
    const settings = await this.repo.findOneBy({ accountId: account.id });
    if (!settings) throw ProblemException.notFound('The account has no settings.');
    return settings;
  }

  /**
   * Replaces all six fields (creating the row if it is missing). Every settings write
   * holds the account's row lock, so `ifMatch` is checked against a version that cannot
   * change before the commit.
   */
  async replace(p: Principal, id: string, dto: AccountSettingsDto, ifMatch = IfMatchCondition.absent): Promise<SettingsEntity> {
    let saved!: SettingsEntity;
    await this.accounts.mutate(p, id, async (account, m) => {
      const repo = m.getRepository(SettingsEntity);
      const stored = await repo.findOneBy({ accountId: account.id });
      ifMatch.assert(stored ? settingsETag(stored) : null);
      const current = stored ?? repo.create({ id: randomUUID(), accountId: account.id });
      saved = await repo.save(Object.assign(current, fieldsOf(dto)));
    });
    return saved;
  }
}
