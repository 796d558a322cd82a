import { Module } from '@nestjs/common';
import { SigningKeysModule } from '../../capabilities/signing-keys/signing-keys.module';
import { JwksController } from './jwks.controller';

/** `GET /.well-known/jwks.json`: the public keys that verify the tokens. */
@Module({
  imports: [SigningKeysModule],
  controllers: [JwksController],
})
export class JwksModule {}
