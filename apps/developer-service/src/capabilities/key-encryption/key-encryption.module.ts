import { Module } from '@nestjs/common';
import { PrivateKeySealer } from './private-key-sealer';

/** Private signing keys encrypted at rest under KEY_ENCRYPTION_SECRET. */
@Module({
  providers: [PrivateKeySealer],
  exports: [PrivateKeySealer],
})
export class KeyEncryptionModule {}
