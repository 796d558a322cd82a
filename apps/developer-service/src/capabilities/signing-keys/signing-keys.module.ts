import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { SigningKeysService } from './signing-keys.service';

/** The token signing keys: stored, rotated on schedule, loaded in memory by every replica. */
@Module({
  imports: [PersistenceModule],
  providers: [SigningKeysService],
  exports: [SigningKeysService],
})
export class SigningKeysModule {}
