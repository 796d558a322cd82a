import { Module } from '@nestjs/common';
import { DirectoryModule } from '../../capabilities/directory/directory.module';
import { RefreshTokensModule } from '../../capabilities/refresh-tokens/refresh-tokens.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { BootstrapService } from './bootstrap.service';

/** Loads tenants, applications and users from VAULT_BOOTSTRAP_FILE (or the demo tenant) at start. */
@Module({
  imports: [DirectoryModule, RefreshTokensModule, PersistenceModule],
  providers: [BootstrapService],
  exports: [BootstrapService],
})
export class BootstrapModule {}
