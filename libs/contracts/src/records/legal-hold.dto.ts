import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import type { TenantRole } from '../roles';
import { TRASH_ITEM_KINDS, type TrashItemKind } from './trash.dto';

/** The token role of a tenant's compliance officer (claim `roles`), who places and releases legal holds. */
export const COMPLIANCE_ROLE: TenantRole = 'compliance';

/** POST /legal-holds body: a named case on a vault, or a record or file of it. */
export class PlaceHoldDto {
  @ApiProperty({ format: 'uuid', description: 'The vault held, or the vault of the record or file held.' })
  @IsUUID()
  vaultId!: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'A record of the vault: only it (with its files) is held.' })
  @IsOptional()
  @IsUUID()
  recordId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'A file of the record: only it is held (needs recordId).' })
  @IsOptional()
  @IsUUID()
  fileId?: string;

  @ApiProperty({ description: 'The case name, shown in every refusal it causes.', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

/** A legal hold. */
export class LegalHoldView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: TRASH_ITEM_KINDS, description: 'What it holds.' }) kind!: TrashItemKind;
  @ApiProperty({ format: 'uuid' }) vaultId!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) recordId!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) fileId!: string | null;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty() placedBy!: string;
  @ApiProperty({ format: 'date-time' }) placedAt!: string;
  @ApiProperty({ type: String, nullable: true }) releasedBy!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) releasedAt!: string | null;
}

/** GET /legal-holds query. */
export class HoldListQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the holds on this vault or on its records and files.' })
  @IsOptional()
  @IsUUID()
  vaultId?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true: released holds too (default false).' })
  @IsOptional()
  @IsString()
  includeReleased?: 'true' | 'false';
}

/** What keeps an item from purge (GET …/retention). */
export class RetentionView {
  @ApiProperty({ enum: TRASH_ITEM_KINDS }) kind!: TrashItemKind;
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'Whether a purge now would be refused.' }) purgeBlocked!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: "End of the plan's retention period (vault.retentionDays) for it and what it holds; null when none.",
  })
  retainedUntil!: string | null;
  @ApiProperty({ description: 'vault.retentionDays of the plan.' }) retentionDays!: number;
  @ApiProperty({ type: [LegalHoldView], description: 'Active holds on it, on its record or on its vault.' })
  holds!: LegalHoldView[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'Set while it is in the trash.' })
  deletedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'When the purger may remove it.' })
  purgeAt!: string | null;
}
