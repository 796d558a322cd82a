import defaultBranding from './default-branding.json';
import { parseBrandingFile } from './branding-file';

describe('parseBrandingFile', () => {
  it('accepts the shipped default branding', () => {
    const { brands, problems } = parseBrandingFile(defaultBranding);
    expect(problems).toEqual([]);
    expect(brands?.some((b) => b.tenant === '*' && b.default)).toBe(true);
  });

  it('names missing fields of a brand', () => {
    const brand = JSON.parse(JSON.stringify(defaultBranding.brands[0]));
    delete brand.styleSheet.darkMode.successBar;
    delete brand.footerMessage['fr-CA'];
    brand.appSections.faqs = 'yes';
    const { brands, problems } = parseBrandingFile({ brands: [brand] });
    expect(brands).toBeUndefined();
    expect(problems).toEqual([
      'brands[0].styleSheet.darkMode.successBar must be a string',
      'brands[0].footerMessage.fr-CA must be a string',
      'brands[0].appSections.faqs must be a boolean',
    ]);
  });

  it('needs a default brand for every tenant', () => {
    const brand = { ...defaultBranding.brands[0], default: false };
    expect(parseBrandingFile({ brands: [brand] }).problems).toEqual(['one brand of tenant "*" must be the default']);
    expect(parseBrandingFile({}).problems).toEqual(['brands must be a non-empty array']);
  });
});
