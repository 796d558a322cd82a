import { Module } from '@nestjs/common';
import { AccessModule } from '../../capabilities/access/access.module';
import { PlansModule } from '../../capabilities/plans/plans.module';
import { RetentionModule } from '../../capabilities/retention/retention.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { TrashListingService } from './trash-listing.service';
import { TrashController } from './trash.controller';
import { TrashPurger } from './trash.purger';
import { TrashService } from './trash.service';

/** The trash: listings, restore and purge, and the background purger. */
@Module({
  imports: [AccessModule, PersistenceModule, PlansModule, RetentionModule],
  controllers: [TrashController],
  providers: [TrashListingService, TrashService, TrashPurger],
})
export class TrashModule {}
