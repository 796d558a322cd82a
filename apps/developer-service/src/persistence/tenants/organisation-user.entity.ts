import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A user of a tenant who may obtain tokens. Usernames are unique per tenant,
 * compared case-insensitively (unique index on tenant_id, lower(username)).
 */
@Entity({ name: 'organisation_users' })
export class OrganisationUserEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 320 })
  username!: string;

  /** argon2id hash of the password. */
  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  /** Tenant roles (`compliance`), carried in the token's `roles` claim. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  roles!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
