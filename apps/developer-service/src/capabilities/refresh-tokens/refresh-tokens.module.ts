import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { DirectoryModule } from '../directory/directory.module';
import { TokensModule } from '../tokens/tokens.module';
import { RefreshTokensService } from './refresh-tokens.service';

/** Refresh-token families: started at sign-in, rotated at each use, revoked as a whole. */
@Module({
  imports: [PersistenceModule, DirectoryModule, TokensModule],
  providers: [RefreshTokensService],
  exports: [RefreshTokensService],
})
export class RefreshTokensModule {}
