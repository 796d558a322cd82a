import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { LicensesService } from './licenses.service';
import { PlansService } from './plans.service';
import { QuotaService } from './quota.service';

/** Plans, the licences that put vaults on them, and the quotas they set. */
@Module({
  imports: [PersistenceModule, EventsModule],
  providers: [PlansService, LicensesService, QuotaService],
  exports: [PlansService, LicensesService, QuotaService],
})
export class PlansModule {}
