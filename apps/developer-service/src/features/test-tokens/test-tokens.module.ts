import { Module } from '@nestjs/common';
import { DirectoryModule } from '../../capabilities/directory/directory.module';
import { TokensModule } from '../../capabilities/tokens/tokens.module';
import { TestTokensController } from './test-tokens.controller';
import { TestTokensService } from './test-tokens.service';

/** `GET .../test`: tokens for test-mode applications. */
@Module({
  imports: [DirectoryModule, TokensModule],
  controllers: [TestTokensController],
  providers: [TestTokensService],
})
export class TestTokensModule {}
