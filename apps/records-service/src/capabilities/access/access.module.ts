import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AccessService } from './access.service';
import { RoleGuard } from './role.guard';

/** Who may do what on vaults and records: the role guard and the lookups behind it. */
@Module({
  imports: [PersistenceModule],
  providers: [AccessService, RoleGuard],
  exports: [AccessService, RoleGuard],
})
export class AccessModule {}
