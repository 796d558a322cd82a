import { Module } from '@nestjs/common';
import { AccessModule } from '../../capabilities/access/access.module';
import { CatalogueModule } from '../../capabilities/catalogue/catalogue.module';
import { EncryptionModule } from '../../capabilities/encryption/encryption.module';
import { EventsModule } from '../../capabilities/events/events.module';
import { StorageModule } from '../../capabilities/storage/storage.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { VaultEncryptionController } from './vault-encryption.controller';
import { VaultEncryptionService } from './vault-encryption.service';

/** Exports of a vault's key and files for its owner (docs/encryption.md, Leaving with your files). */
@Module({
  imports: [AccessModule, CatalogueModule, EncryptionModule, EventsModule, PersistenceModule, StorageModule],
  controllers: [VaultEncryptionController],
  providers: [VaultEncryptionService],
})
export class VaultEncryptionModule {}
