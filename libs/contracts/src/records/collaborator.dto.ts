import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, IsUUID, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import type { RecordRole, VaultRole } from '../roles';

/** Roles an owner can grant on a vault (docs/records-api.md, Collaborators). */
export const VAULT_GUEST_ROLES = ['vault_editor', 'vault_viewer', 'vault_info'] as const satisfies readonly VaultRole[];
export type VaultGuestRole = (typeof VAULT_GUEST_ROLES)[number];

/** Roles that can be granted on one record. */
export const RECORD_GUEST_ROLES = ['rec_editor', 'rec_viewer', 'rec_info'] as const satisfies readonly RecordRole[];
export type RecordGuestRole = (typeof RECORD_GUEST_ROLES)[number];

/** Exactly one of username and openId is given. */
const OneAccount = () =>
  ValidateBy({
    name: 'oneAccount',
    validator: {
      validate: (_: unknown, args) => {
        const o = args?.object as AccountChoice;
        return (o.username === undefined) !== (o.openId === undefined);
      },
      defaultMessage: () => 'give exactly one of username and openId',
    },
  });

/** Names the account to share with: its username (e-mail) or its openId, exactly one of them. */
abstract class AccountChoice {
  @ApiPropertyOptional({
    description: "The account's username (its e-mail). Give this or openId.",
    maxLength: 320,
  })
  @ValidateIf((o: AccountChoice) => o.openId === undefined || o.username !== undefined)
  @OneAccount()
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  username?: string;

  @ApiPropertyOptional({
    description: "The account's openId. Give this or username.",
    maxLength: 200,
  })
  @ValidateIf((o: AccountChoice) => o.username === undefined || o.openId !== undefined)
  @OneAccount()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  openId?: string;
}

/** POST .../vault/vault-id/{vaultId}/collaborators */
export class AddVaultCollaboratorDto extends AccountChoice {
  @ApiProperty({ enum: VAULT_GUEST_ROLES })
  @IsIn(VAULT_GUEST_ROLES)
  role!: VaultGuestRole;
}

/** PUT .../collaborators/collaborator-id/{id} */
export class UpdateVaultCollaboratorDto {
  @ApiProperty({ enum: VAULT_GUEST_ROLES })
  @IsIn(VAULT_GUEST_ROLES)
  role!: VaultGuestRole;
}

/** POST .../records/record-id/{recordId}/collaborators */
export class AddRecordCollaboratorDto extends AccountChoice {
  @ApiProperty({ enum: RECORD_GUEST_ROLES })
  @IsIn(RECORD_GUEST_ROLES)
  role!: RecordGuestRole;
}

/** PUT .../records/record-id/{recordId}/collaborators/collaborator-id/{id} */
export class UpdateRecordCollaboratorDto {
  @ApiProperty({ enum: RECORD_GUEST_ROLES })
  @IsIn(RECORD_GUEST_ROLES)
  role!: RecordGuestRole;
}

/** PUT .../vault/vault-id/{vaultId}/owner */
export class TransferVaultOwnershipDto {
  @ApiProperty({
    format: 'uuid',
    description: 'Id of the vault collaborator who becomes the owner.',
  })
  @IsUUID()
  collaboratorId!: string;
}

/** A member of a vault or a record, with the account's names from the directory. */
export class CollaboratorView {
  @ApiProperty({
    format: 'uuid',
    description: 'Id of the membership (collaborator-id in paths).',
  })
  id!: string;

  @ApiProperty()
  openId!: string;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Null when the account is not (yet) in the directory.',
  })
  username!: string | null;

  @ApiProperty({ nullable: true, type: String })
  firstName!: string | null;

  @ApiProperty({ nullable: true, type: String })
  lastName!: string | null;

  @ApiProperty({
    enum: ['vault_owner', ...VAULT_GUEST_ROLES, 'rec_owner', ...RECORD_GUEST_ROLES],
  })
  role!: VaultRole | RecordRole;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}
