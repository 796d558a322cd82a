import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { PersistenceModule } from '../persistence/persistence.module';
import { AccountDirectoryService } from './account-directory.service';
import { AccountEventsHandler } from './account-events.handler';

/**
 * The tenant account directory, projected from user-service's account events by a
 * durable JetStream consumer (AccountEventsHandler, run by the service's transport).
 */
@Module({
  imports: [PersistenceModule, EventsModule],
  controllers: [AccountEventsHandler],
  providers: [AccountDirectoryService],
  exports: [AccountDirectoryService],
})
export class DirectoryModule {}
