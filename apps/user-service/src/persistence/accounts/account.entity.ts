import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryColumn, UpdateDateColumn, VersionColumn } from 'typeorm';
import type { CountryCode, Gender, MaritalStatus } from '@vault/contracts';

export interface StoredResidence {
  id: string;
  buildingNumber: string | null;
  streetName: string | null;
  unitNumber: string | null;
  city: string | null;
  provinceState: string | null;
  postalZip: string | null;
  country: CountryCode | null;
}

export interface StoredEmail {
  _id: string;
  address: string;
  primary: boolean;
  verified: boolean;
}

export interface StoredPhone {
  _id: string;
  number: number;
  ext: number;
  mobile: boolean;
  primary: boolean;
  verified: boolean;
}

/**
 * A user account, bound to one identity (tenant + openId). Emails and phones are
 * small owned lists kept as JSON documents on the row, changed under a row lock.
 */
@Entity('accounts')
export class AccountEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId: string;

  @Column({ name: 'open_id', type: 'text' })
  openId: string;

  @Column({ type: 'text' })
  username: string;

  @Column({ name: 'first_name', type: 'text' })
  firstName: string;

  @Column({ name: 'last_name', type: 'text' })
  lastName: string;

  @Column({ name: 'profile_photo', type: 'text', nullable: true })
  profilePhoto: string | null;

  /** `YYYY-MM-DD`. */
  @Column({ name: 'date_of_birth', type: 'date', nullable: true })
  dateOfBirth: string | null;

  @Column({ name: 'marital_status', type: 'text', nullable: true })
  maritalStatus: MaritalStatus | null;

  @Column({ type: 'text', nullable: true })
  gender: Gender | null;

  @Column({ name: 'primary_residence', type: 'jsonb', nullable: true })
  primaryResidence: StoredResidence | null;

  @Column({ type: 'jsonb' })
  emails: StoredEmail[];

  @Column({ type: 'jsonb' })
  phones: StoredPhone[];

  @Column({ name: 'referral_code', type: 'text', nullable: true })
  referralCode: string | null;

  @Column({ name: 'cobrand_id', type: 'text', nullable: true })
  cobrandId: string | null;

  @Column({ name: 'default_team', type: 'text', nullable: true })
  defaultTeam: string | null;

  @Column({ name: 'customer_id', type: 'text', nullable: true })
  customerId: string | null;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  /** 1 at insert, +1 by every save that changes the row: the ETag's version. */
  @VersionColumn({ type: 'integer' })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /**
   * Set when the holder deleted the account (soft delete): every TypeORM read of
   * accounts skips such a row unless it asks `withDeleted`.
   */
  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
