import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RecordEntity } from '../records/record.entity';
import { VaultEntity } from '../vaults/vault.entity';
import { AccessService } from './access.service';
import { RecordMembershipEntity, VaultMembershipEntity } from './membership.entity';
import { RoleGuard } from './role.guard';

@Module({
  imports: [
    TypeOrmModule.forFeature([VaultEntity, RecordEntity, VaultMembershipEntity, RecordMembershipEntity]),
  ],
  providers: [AccessService, RoleGuard],
  exports: [AccessService, RoleGuard],
})
export class AccessModule {}
