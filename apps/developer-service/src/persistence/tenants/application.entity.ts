import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A client application of a tenant; client ids are unique across the platform. */
@Entity({ name: 'applications' })
export class ApplicationEntity {
  @PrimaryColumn({ name: 'client_id', type: 'varchar', length: 128 })
  clientId!: string;

  @Index()
  @Column({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  /** argon2id hash of the client secret. */
  @Column({ name: 'secret_hash', type: 'text' })
  secretHash!: string;

  @Column({ name: 'test_mode', type: 'boolean', default: false })
  testMode!: boolean;

  @Column({
    name: 'redirect_uris',
    type: 'text',
    array: true,
    default: () => "'{}'",
  })
  redirectUris!: string[];

  /** Serialized browser origins the gateway answers CORS for (scheme://host[:port]). */
  @Column({
    name: 'allowed_origins',
    type: 'text',
    array: true,
    default: () => "'{}'",
  })
  allowedOrigins!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
