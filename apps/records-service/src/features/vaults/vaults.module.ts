import { Module } from '@nestjs/common';
import { AccessModule } from '../../capabilities/access/access.module';
import { BrandingModule } from '../../capabilities/branding/branding.module';
import { CatalogueModule } from '../../capabilities/catalogue/catalogue.module';
import { EventsModule } from '../../capabilities/events/events.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { PlansModule } from '../../capabilities/plans/plans.module';
import { RetentionModule } from '../../capabilities/retention/retention.module';
import { BrandingController } from './branding.controller';
import { HomeService } from './home.service';
import { VaultDeletionPurger } from './vault-deletion.purger';
import { VaultsController } from './vaults.controller';
import { VaultsService } from './vaults.service';

/** Vaults, their home page and their branding; the scheduled removal of vaults of deleted owners. */
@Module({
  imports: [AccessModule, BrandingModule, CatalogueModule, EventsModule, PersistenceModule, PlansModule, RetentionModule],
  controllers: [VaultsController, BrandingController],
  providers: [VaultsService, HomeService, VaultDeletionPurger],
})
export class VaultsModule {}
