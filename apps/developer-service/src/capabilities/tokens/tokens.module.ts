import { Module } from '@nestjs/common';
import { ClosedIdentitiesModule } from '../closed-identities/closed-identities.module';
import { SigningKeysModule } from '../signing-keys/signing-keys.module';
import { TokenSigner } from './token-signer.service';

/** Access tokens signed with the active key, never for a closed identity. */
@Module({
  imports: [SigningKeysModule, ClosedIdentitiesModule],
  providers: [TokenSigner],
  exports: [TokenSigner],
})
export class TokensModule {}
