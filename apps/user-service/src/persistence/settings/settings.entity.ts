import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn, VersionColumn } from 'typeorm';
import type { AccountLocale, CountryCode, MfaMode, NotificationMethod } from '@vault/contracts';

/** Settings of one account (one row per account). */
@Entity('account_settings')
export class SettingsEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ name: 'notification_method', type: 'text' })
  notificationMethod: NotificationMethod;

  @Column({ name: 'communication_language', type: 'text' })
  communicationLanguage: AccountLocale;

  @Column({ name: 'preferred_language', type: 'text' })
  preferredLanguage: AccountLocale;

  @Column({ type: 'text' })
  country: CountryCode;

  @Column({ name: 'mfa_disabled', type: 'boolean' })
  mfaDisabled: boolean;

  @Column({ name: 'mfa_mode', type: 'text' })
  mfaMode: MfaMode;

  /** Revision, reported as `__v`. */
  @VersionColumn({ type: 'integer' })
  revision: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** The six fields a client sets. */
export type SettingsFields = Pick<
  SettingsEntity,
  'notificationMethod' | 'communicationLanguage' | 'preferredLanguage' | 'country' | 'mfaDisabled' | 'mfaMode'
>;

/** Only the six settings fields (of a body: never its read-only echoes). */
export function settingsFields(src: SettingsFields): SettingsFields {
  return {
    notificationMethod: src.notificationMethod,
    communicationLanguage: src.communicationLanguage,
    preferredLanguage: src.preferredLanguage,
    country: src.country,
    mfaDisabled: src.mfaDisabled,
    mfaMode: src.mfaMode,
  };
}
