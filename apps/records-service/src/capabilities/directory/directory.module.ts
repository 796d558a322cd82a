import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AccountDirectoryService } from './account-directory.service';
import { AccountEventsHandler } from './account-events.handler';
import { OrphanedVaults } from './orphaned-vaults';

/**
 * The tenant account directory, projected from user-service's account events by a
 * durable JetStream consumer (AccountEventsHandler, run by the service's transport).
 */
@Module({
  imports: [PersistenceModule, EventsModule],
  controllers: [AccountEventsHandler],
  providers: [AccountDirectoryService, OrphanedVaults],
  exports: [AccountDirectoryService, OrphanedVaults],
})
export class DirectoryModule {}
