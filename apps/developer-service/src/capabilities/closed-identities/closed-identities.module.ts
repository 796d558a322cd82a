import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountDeletionsHandler } from './account-deletions.handler';
import { ClosedIdentitiesService } from './closed-identities.service';
import { ClosedIdentityEntity } from '../../persistence/closed-identities/closed-identity.entity';

/** Identities of deleted accounts (account events of the user module): no token is issued to them. */
@Module({
  imports: [TypeOrmModule.forFeature([ClosedIdentityEntity])],
  controllers: [AccountDeletionsHandler],
  providers: [ClosedIdentitiesService],
  exports: [ClosedIdentitiesService],
})
export class ClosedIdentitiesModule {}
