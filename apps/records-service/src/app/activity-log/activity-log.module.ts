import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { ActivityLogEntryEntity } from './activity-log-entry.entity';
import { ActivityLogPipelineModule } from './activity-log-pipeline.module';
import { ActivityLogController } from './activity-log.controller';
import { ActivityLogService } from './activity-log.service';

/** The vault activity log: the paged endpoint, plus relay and writer as configured. */
@Module({
  imports: [
    AccessModule,
    TypeOrmModule.forFeature([ActivityLogEntryEntity]),
    ActivityLogPipelineModule.forRoot(),
  ],
  controllers: [ActivityLogController],
  providers: [ActivityLogService],
})
export class ActivityLogModule {}
