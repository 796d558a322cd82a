import { BaseEnv, SecretSetting, ToInt } from '@vault/platform/config';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

const KMS_KINDS = ['local', 'pkcs11'] as const;
export type KmsKind = (typeof KMS_KINDS)[number];

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const isPkcs11 = (e: EncryptionEnv) => e.ENCRYPTION_KMS === 'pkcs11';

/** Settings of file encryption at rest: where the tenant key-encryption keys live, and the vault key cache. */
export class EncryptionEnv extends BaseEnv {
  /** `local`: a keyring from ENCRYPTION_KEYRING or a keyring file; `pkcs11`: AES keys on a PKCS#11 token. */
  @IsIn(KMS_KINDS)
  ENCRYPTION_KMS: KmsKind = 'local';

  /** Local keyring as `id:base64key,id:base64key` (32-byte AES keys); wins over the file. */
  @SecretSetting()
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,64}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9._-]{1,64}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'ENCRYPTION_KEYRING must be id:base64key pairs (32-byte keys) separated by commas',
  })
  ENCRYPTION_KEYRING?: string;

  /**
   * Local keyring file (JSON `{"active": id, "keys": {id: base64key}}`). Outside production,
   * when neither this nor ENCRYPTION_KEYRING is set, `.data/keyring.json` is used and
   * created with a new key on first start (`npm start`).
   */
  @IsOptional()
  @IsString()
  ENCRYPTION_KEYRING_FILE?: string;

  /** Id of the KEK new vault keys are wrapped with (default: the file's `active`, else the last key listed). */
  @IsOptional()
  @Matches(KEY_ID, { message: 'ENCRYPTION_ACTIVE_KEY must be a key id (letters, digits, . _ -)' })
  ENCRYPTION_ACTIVE_KEY?: string;

  /** Tenants with a KEK of their own: `tenant=keyId,tenant=keyId`. */
  @IsOptional()
  @Matches(/^[^=,\s]+=[A-Za-z0-9._-]{1,64}(,[^=,\s]+=[A-Za-z0-9._-]{1,64})*$/, {
    message: 'ENCRYPTION_TENANT_KEYS must be tenant=keyId pairs separated by commas',
  })
  ENCRYPTION_TENANT_KEYS?: string;

  /** Path of the PKCS#11 module (for SoftHSM2: /usr/lib/softhsm/libsofthsm2.so). */
  @ValidateIf(isPkcs11)
  @IsString({ message: 'PKCS11_MODULE is required when ENCRYPTION_KMS=pkcs11' })
  PKCS11_MODULE?: string;

  @ValidateIf(isPkcs11)
  @IsString({ message: 'PKCS11_TOKEN_LABEL is required when ENCRYPTION_KMS=pkcs11' })
  PKCS11_TOKEN_LABEL?: string;

  /** User PIN of the token. */
  @SecretSetting()
  @ValidateIf(isPkcs11)
  @IsString({ message: 'PKCS11_PIN is required when ENCRYPTION_KMS=pkcs11' })
  PKCS11_PIN?: string;

  /**
   * Seconds a sign-in stays recent enough to export a vault's age identity (the token's
   * `auth_time`; an older sign-in, or none, gets 401 reauthentication_required, RFC 9470).
   */
  @ToInt()
  @IsInt()
  @Min(60)
  @Max(86_400)
  ENCRYPTION_EXPORT_MAX_AUTH_AGE_SECONDS = 600;

  /** Seconds an unwrapped vault key stays in memory after its last use (0: not kept). */
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(3600)
  VAULT_KEY_CACHE_SECONDS = 300;

  /**
   * Milliseconds between passes of the background job that encrypts plaintext blobs
   * (stored before encryption at rest, or by resumable uploads begun before they were sealed
   * as they arrive) and rewraps envelopes still sealed to another vault;
   * 0: no job in this process (run `node main.js vault-keys encrypt-existing` instead).
   */
  @ToInt()
  @IsInt()
  @Min(0)
  ENCRYPTION_JOB_INTERVAL_MS = 30_000;

  /** Seconds a replaced plaintext object is kept after its blob points at the encrypted copy (downloads under way). */
  @ToInt()
  @IsInt()
  @Min(0)
  ENCRYPTION_JOB_GRACE_SECONDS = 3600;

  /**
   * `plaintext`: new uploads are stored unencrypted. Only for `npm run bench:files`, which
   * compares the two paths on the same build; refused in production (the start fails).
   */
  @IsIn(['on', 'plaintext'])
  ENCRYPTION_AT_REST: 'on' | 'plaintext' = 'on';

  /** Most unwrapped vault keys kept in memory at once (least recently used go first). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  VAULT_KEY_CACHE_ENTRIES = 1000;
}
