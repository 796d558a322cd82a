import { Injectable } from '@nestjs/common';
import { BrandingView, DarkMode, DEFAULT_LOCALE, DisplayLocale } from '@vault/contracts';
import { loadJsonConfigFile } from '../../config/json-config-file';
import { RecordsEnv } from '../../config/records.env';
import { stableId } from '../catalogue/stable-id';
import { ANY_TENANT, Brand, parseBrandingFile } from './branding-file';
import { unknownBrandCode } from './branding.errors';
import defaultBranding from './default-branding.json';

/** Brandings per tenant and brandCode from VAULT_BRANDING_FILE (or the shipped default). */
@Injectable()
export class BrandingService {
  private readonly brands: Brand[];

  constructor(env: RecordsEnv) {
    this.brands = loadJsonConfigFile('VAULT_BRANDING_FILE', env.VAULT_BRANDING_FILE, defaultBranding, (raw) => {
      const { brands, problems } = parseBrandingFile(raw);
      return { value: brands, problems };
    });
  }

  /**
   * The brand of a vault: its brandCode for its tenant, else for every tenant ("*");
   * without a brandCode the tenant's default brand, else the default of "*".
   */
  find(tenantId: string, brandCode: string | null): Brand | undefined {
    const match = (tenant: string) =>
      this.brands.find((b) => b.tenant === tenant && (brandCode === null ? b.default : b.brandCode === brandCode));
    return match(tenantId) ?? match(ANY_TENANT);
  }

  /** Refuses a brandCode with no brand for the tenant (400 naming the field). */
  assertKnown(tenantId: string, brandCode: string | undefined): void {
    if (brandCode !== undefined && !this.find(tenantId, brandCode)) {
      throw unknownBrandCode();
    }
  }

  view(
    tenantId: string,
    brandCode: string | null,
    locale: DisplayLocale = DEFAULT_LOCALE,
    mode: DarkMode = 'lightMode',
  ): BrandingView {
    const brand = this.find(tenantId, brandCode) ?? (this.find(tenantId, null) as Brand);
    return {
      id: stableId('brand', `${brand.tenant}/${brand.brandCode}`),
      tenant: tenantId,
      brandCode: brand.brandCode,
      brandName: brand.brandName,
      locale,
      ...brand.logos[mode],
      footerMessage: brand.footerMessage[locale],
      styleSheet: { ...brand.styleSheet[mode] },
      appSections: { ...brand.appSections },
      active: brand.active,
      hideDefaultRecordTypes: brand.hideDefaultRecordTypes,
      default: brand.default,
    };
  }
}
