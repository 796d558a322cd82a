import { RecordsEnv } from '../../config/records.env';
import { BrandingService } from './branding.service';

const service = (VAULT_BRANDING_FILE?: string) => new BrandingService(Object.assign(new RecordsEnv(), { VAULT_BRANDING_FILE }));

describe('BrandingService', () => {
  it('finds the tenant brand, then the shared one, then the default', () => {
    const b = service();
    expect(b.find('any-tenant', 'partner')?.brandCode).toBe('partner');
    expect(b.find('any-tenant', null)?.brandCode).toBe('default');
    expect(b.find('any-tenant', 'unknown')).toBeUndefined();
    expect(() => b.assertKnown('t', 'unknown')).toThrow('The brand code is not configured.');
    expect(() => b.assertKnown('t', undefined)).not.toThrow();
  });

  it('selects the locale and mode variants and keeps a stable id', () => {
    const b = service();
    const light = b.view('t', null, 'fr-CA', 'lightMode');
    const dark = b.view('t', null, 'fr-CA', 'darkMode');
    expect(light.footerMessage).toMatch(/Confidentialité/);
    expect(light.styleSheet.appBackground).not.toEqual(dark.styleSheet.appBackground);
    expect(light.id).toEqual(dark.id);
    expect(light.tenant).toBe('t');
  });

  it('stops the boot on an unreadable file', () => {
    expect(() => service('/nonexistent/branding.json')).toThrow(/VAULT_BRANDING_FILE: cannot read/);
  });
});
