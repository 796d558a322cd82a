import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module';
import { KeysModule } from '../keys/keys.module';
import { TestTokensController } from './test-tokens.controller';
import { TestTokensService } from './test-tokens.service';

/** `GET .../test`: tokens for test-mode applications. */
@Module({
  imports: [DirectoryModule, KeysModule],
  controllers: [TestTokensController],
  providers: [TestTokensService],
})
export class TestTokensModule {}
