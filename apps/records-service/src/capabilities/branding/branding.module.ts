import { Module } from '@nestjs/common';
import { BrandingService } from './branding.service';

/** Brands of each tenant (from the branding file): validation of brand codes and rendered views. */
@Module({
  providers: [BrandingService],
  exports: [BrandingService],
})
export class BrandingModule {}
