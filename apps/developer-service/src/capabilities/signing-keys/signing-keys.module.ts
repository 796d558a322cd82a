import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { KeyEncryptionModule } from '../key-encryption/key-encryption.module';
import { KeyRing } from './key-ring';
import { KeyRotation } from './key-rotation';
import { SigningKeysService } from './signing-keys.service';

/** The token signing keys: stored, rotated on schedule, loaded in memory by every replica. */
@Module({
  imports: [PersistenceModule, KeyEncryptionModule],
  providers: [SigningKeysService, KeyRotation, KeyRing],
  exports: [SigningKeysService],
})
export class SigningKeysModule {}
