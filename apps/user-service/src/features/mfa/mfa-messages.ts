import type { AccountLocale } from '@vault/contracts';

interface MfaText {
  subject: string;
  body: (code: string) => string;
}

const EN: MfaText = {
  subject: 'Your Vault verification code',
  body: (code) => `Your Vault verification code is ${code}. It expires in 10 minutes. Never share it.`,
};
const ES: MfaText = {
  subject: 'Su código de verificación de Vault',
  body: (code) => `Su código de verificación de Vault es ${code}. Caduca en 10 minutos. No lo comparta.`,
};
const FR: MfaText = {
  subject: 'Votre code de vérification Vault',
  body: (code) => `Votre code de vérification Vault est ${code}. Il expire dans 10 minutes. Ne le partagez pas.`,
};

const BY_LOCALE: Record<AccountLocale, MfaText> = { 'en-CA': EN, 'en-US': EN, 'es-US': ES, 'fr-CA': FR };

/** Text of an MFA message in a locale of the contract (English by default). */
export function mfaText(locale: AccountLocale | undefined): MfaText {
  return BY_LOCALE[locale ?? 'en-US'];
}
