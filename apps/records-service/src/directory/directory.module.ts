import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { PersistenceModule } from '../persistence/persistence.module';
import { AccountDirectoryService } from './account-directory.service';

/** The tenant account directory, projected from user-service's account events. */
@Module({
  imports: [PersistenceModule, EventsModule],
  providers: [AccountDirectoryService],
  exports: [AccountDirectoryService],
})
export class DirectoryModule {}
