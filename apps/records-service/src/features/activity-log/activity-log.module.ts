import { Module } from '@nestjs/common';
import { AccessModule } from '../../capabilities/access/access.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { ActivityLogController } from './activity-log.controller';
import { ActivityLogService } from './activity-log.service';

/** The vault activity log's read side: the paged endpoint (the pipeline that fills it is apart). */
@Module({
  imports: [AccessModule, PersistenceModule],
  controllers: [ActivityLogController],
  providers: [ActivityLogService],
})
export class ActivityLogModule {}
