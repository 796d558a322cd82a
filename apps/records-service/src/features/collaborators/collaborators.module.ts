import { Module } from '@nestjs/common';
import { AccessModule } from '../../capabilities/access/access.module';
import { DirectoryModule } from '../../capabilities/directory/directory.module';
import { EventsModule } from '../../capabilities/events/events.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { PlansModule } from '../../capabilities/plans/plans.module';
import { CollaboratorChanges } from './collaborator-changes';
import { CollaboratorsService } from './collaborators.service';
import { RecordCollaboratorsController } from './record-collaborators.controller';
import { VaultCollaboratorsController } from './vault-collaborators.controller';
import { VaultOwnershipService } from './vault-ownership.service';

/** Sharing vaults and records with accounts of the organisation, and ownership transfer. */
@Module({
  imports: [AccessModule, DirectoryModule, EventsModule, PersistenceModule, PlansModule],
  controllers: [VaultCollaboratorsController, RecordCollaboratorsController],
  providers: [CollaboratorChanges, CollaboratorsService, VaultOwnershipService],
})
export class CollaboratorsModule {}
