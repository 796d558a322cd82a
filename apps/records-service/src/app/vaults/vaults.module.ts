import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { BrandingModule } from '../branding/branding.module';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { EventsModule } from '../events/events.module';
import { PlansModule } from '../plans/plans.module';
import { HomeService } from './home.service';
import { VaultsController } from './vaults.controller';
import { VaultsService } from './vaults.service';

@Module({
  imports: [AccessModule, BrandingModule, CatalogueModule, EventsModule, PlansModule],
  controllers: [VaultsController],
  providers: [VaultsService, HomeService],
})
export class VaultsModule {}
