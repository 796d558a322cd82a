import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClosedIdentitiesModule } from '../closed-identities/closed-identities.module';
import { JwksController } from './jwks.controller';
import { SigningKeyEntity } from './signing-key.entity';
import { SigningKeysService } from './signing-keys.service';
import { TokenSigner } from './token-signer.service';

/** Signing keys (persisted), token signing and the public JWKS endpoint. */
@Module({
  imports: [TypeOrmModule.forFeature([SigningKeyEntity]), ClosedIdentitiesModule],
  controllers: [JwksController],
  providers: [SigningKeysService, TokenSigner],
  exports: [TokenSigner],
})
export class KeysModule {}
