import type { SettingsResponse } from '@vault/contracts';
import { versionETag } from '@vault/platform/http';
import { SettingsEntity, settingsFields } from '../../persistence/settings/settings.entity';

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
