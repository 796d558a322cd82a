import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A vault's subscription licence; the newest one decides the vault's plan. */
@Entity('vault_licenses')
export class LicenseEntity {
  /** The subscriptionId of the contract. */
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'plan_id', type: 'text' })
  planId!: string;

  @Column({ name: 'license_key', type: 'text', nullable: true })
  licenseKey!: string | null;

  @Column({ type: 'boolean', default: false })
  sponsored!: boolean;

  @Column({ type: 'text', nullable: true })
  sponsor!: string | null;

  @Column({ name: 'renews_on', type: 'timestamptz' })
  renewsOn!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
