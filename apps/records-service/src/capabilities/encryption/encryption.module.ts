import { Module, OnApplicationShutdown } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { PersistenceModule } from '../../persistence/persistence.module';
import { BlobEnvelopeRepository } from '../../persistence/vault-keys/blob-envelope.repository';
import { VaultKeyRepository } from '../../persistence/vault-keys/vault-key.repository';
import { BlobCipherService } from './blob-cipher.service';
import { CryptoEraseService } from './crypto-erase.service';
import { EncryptionEnv } from './encryption.env';
import { KeyEncryptionKeys } from './key-encryption-keys';
import { keyEncryptionKeysFromEnv } from './keyring-config';
import { MovedBlobsService } from './moved-blobs.service';
import { VaultKeysService } from './vault-keys.service';

/**
 * Encryption at rest: the KMS adapter ENCRYPTION_KMS names (checked at boot: bad keys
 * refuse the start), vault keys, and the cipher of file bodies for the storage layer.
 */
@Module({
  imports: [PersistenceModule],
  providers: [
    { provide: EncryptionEnv, useFactory: () => loadEnv(EncryptionEnv) },
    { provide: KeyEncryptionKeys, inject: [EncryptionEnv], useFactory: keyEncryptionKeysFromEnv },
    VaultKeyRepository,
    BlobEnvelopeRepository,
    VaultKeysService,
    BlobCipherService,
    CryptoEraseService,
    MovedBlobsService,
  ],
  exports: [EncryptionEnv, VaultKeysService, BlobCipherService, BlobEnvelopeRepository, CryptoEraseService, MovedBlobsService],
})
export class EncryptionModule implements OnApplicationShutdown {
  constructor(private readonly kms: KeyEncryptionKeys) {}

  onApplicationShutdown(): Promise<void> {
    return this.kms.close();
  }
}
