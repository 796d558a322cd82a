import {
  ACCOUNT_LOCALES,
  APP_SECTION_KEYS,
  AppSectionKey,
  BRANDING_LOGOS,
  BrandingLogo,
  DARK_MODES,
  DarkMode,
  DisplayLocale,
  LogoSizes,
  STYLE_SHEET_KEYS,
  StyleSheetKey,
} from '@vault/contracts';

/** One brand of VAULT_BRANDING_FILE; `tenant` "*" applies to every tenant. */
export interface Brand {
  tenant: string;
  brandCode: string;
  brandName: string;
  default: boolean;
  active: boolean;
  hideDefaultRecordTypes: boolean;
  logos: Record<DarkMode, Record<BrandingLogo, LogoSizes>>;
  footerMessage: Record<DisplayLocale, string>;
  styleSheet: Record<DarkMode, Record<StyleSheetKey, string>>;
  appSections: Record<AppSectionKey, boolean>;
}

export const ANY_TENANT = '*';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function requireKeys(
  problems: string[],
  at: string,
  value: unknown,
  keys: readonly string[],
  check: (v: unknown) => boolean,
  kind: string,
): void {
  if (!isObject(value)) {
    problems.push(`${at} must be an object`);
    return;
  }
  for (const k of keys) if (!check(value[k])) problems.push(`${at}.${k} must be ${kind}`);
}

const isText = (v: unknown) => typeof v === 'string' && v !== '';
const isSizes = (v: unknown) => isObject(v) && ['large', 'medium', 'small'].every((s) => isText(v[s]));

/**
 * Checks a branding file; every field of the branding response must be configured
 * for both modes and all locales (docs/records-api.md, Branding).
 */
export function parseBrandingFile(raw: unknown): { brands?: Brand[]; problems: string[] } {
  const problems: string[] = [];
  const list = isObject(raw) && Array.isArray(raw['brands']) ? raw['brands'] : undefined;
  if (!list || list.length === 0) return { problems: ['brands must be a non-empty array'] };
  const seen = new Set<string>();
  list.forEach((b: unknown, i) => {
    const at = `brands[${i}]`;
    if (!isObject(b)) {
      problems.push(`${at} must be an object`);
      return;
    }
    for (const k of ['tenant', 'brandCode', 'brandName']) if (!isText(b[k])) problems.push(`${at}.${k} must be a string`);
    for (const k of ['default', 'active', 'hideDefaultRecordTypes']) {
      if (typeof b[k] !== 'boolean') problems.push(`${at}.${k} must be a boolean`);
    }
    const id = `${String(b['tenant'])}/${String(b['brandCode'])}`;
    if (seen.has(id)) problems.push(`${at} repeats tenant and brandCode ${id}`);
    seen.add(id);
    for (const mode of DARK_MODES) {
      requireKeys(
        problems,
        `${at}.logos.${mode}`,
        isObject(b['logos']) ? b['logos'][mode] : undefined,
        BRANDING_LOGOS,
        isSizes,
        'an object of large, medium and small URLs',
      );
      requireKeys(
        problems,
        `${at}.styleSheet.${mode}`,
        isObject(b['styleSheet']) ? b['styleSheet'][mode] : undefined,
        STYLE_SHEET_KEYS,
        isText,
        'a string',
      );
    }
    requireKeys(problems, `${at}.footerMessage`, b['footerMessage'], ACCOUNT_LOCALES, isText, 'a string');
    requireKeys(problems, `${at}.appSections`, b['appSections'], APP_SECTION_KEYS, (v) => typeof v === 'boolean', 'a boolean');
  });
  for (const tenant of new Set(list.filter(isObject).map((b) => b['tenant']))) {
    if (list.filter((b) => isObject(b) && b['tenant'] === tenant && b['default'] === true).length > 1) {
      problems.push(`tenant ${String(tenant)} has more than one default brand`);
    }
  }
  if (!list.some((b) => isObject(b) && b['tenant'] === ANY_TENANT && b['default'] === true)) {
    problems.push('one brand of tenant "*" must be the default');
  }
  return problems.length ? { problems } : { brands: list as Brand[], problems };
}
