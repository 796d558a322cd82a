import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SigningKeyEntity } from '../../persistence/signing-keys/signing-key.entity';
import { SigningKeysService } from './signing-keys.service';

/** The token signing keys: stored, rotated on schedule, loaded in memory by every replica. */
@Module({
  imports: [TypeOrmModule.forFeature([SigningKeyEntity])],
  providers: [SigningKeysService],
  exports: [SigningKeysService],
})
export class SigningKeysModule {}
