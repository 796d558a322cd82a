import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { LicenseEntity } from './license.entity';
import { LicensesService } from './licenses.service';
import { PlansService } from './plans.service';

@Module({
  imports: [TypeOrmModule.forFeature([LicenseEntity]), EventsModule],
  providers: [PlansService, LicensesService],
  exports: [PlansService, LicensesService],
})
export class PlansModule {}
