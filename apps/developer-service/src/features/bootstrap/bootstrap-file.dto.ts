import { serializeOrigin, TENANT_ROLES, type TenantRole } from '@vault/contracts';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
  ValidateBy,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';

import { IDENTIFIER } from '../../capabilities/directory/identifiers';

/** A browser origin (`serializeOrigin` accepts it). */
function IsOrigin(options: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isOrigin', validator: { validate: (v: unknown) => typeof v === 'string' && serializeOrigin(v) !== undefined } },
    options,
  );
}

export class BootstrapApplication {
  @Matches(IDENTIFIER, {
    message: 'clientId must be 1-128 characters of A-Z a-z 0-9 . _ ~ -',
  })
  clientId!: string;

  @IsString()
  @MinLength(8)
  @MaxLength(1024)
  clientSecret!: string;

  @IsOptional()
  @IsBoolean()
  testMode?: boolean;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsUrl(
    {
      require_tld: false,
      require_protocol: true,
      protocols: ['http', 'https'],
    },
    { each: true, message: 'redirectUris must hold absolute http(s) URLs' },
  )
  redirectUris?: string[];

  /**
   * Browser origins the gateway answers CORS for: `scheme://host[:port]`, http or https,
   * no path, no wildcard (docs/developer-api.md, "Browser origins").
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsOrigin({
    each: true,
    message:
      'allowedOrigins must hold origins such as https://app.example.com (scheme, host and optional port; no path, no wildcard)',
  })
  allowedOrigins?: string[];
}

export class BootstrapUser {
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  @Matches(/^\S(.*\S)?$/, {
    message: 'username must not start or end with spaces',
  })
  username!: string;

  @IsString()
  @MinLength(8)
  @MaxLength(1024)
  password!: string;

  /** Tenant roles: `compliance` for a compliance officer (legal holds in the records module). */
  @IsOptional()
  @IsArray()
  @IsIn(TENANT_ROLES, { each: true })
  roles?: TenantRole[];
}

export class BootstrapTenant {
  @Matches(IDENTIFIER, {
    message: 'id must be 1-128 characters of A-Z a-z 0-9 . _ ~ -',
  })
  id!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(256)
  name!: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => BootstrapApplication)
  applications?: BootstrapApplication[];

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => BootstrapUser)
  users?: BootstrapUser[];
}

/** `VAULT_BOOTSTRAP_FILE`: `{"tenants":[{"id","name","applications":[...],"users":[...]}]}`. */
export class BootstrapFile {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => BootstrapTenant)
  tenants!: BootstrapTenant[];
}
