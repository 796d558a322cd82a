import { randomUUID } from 'node:crypto';
import { AccountProfileDto, EmailEntryDto, parseDayMonthYear, PhoneEntryDto, ResidenceDto } from '@vault/contracts';
import { AccountEntity, StoredEmail, StoredPhone, StoredResidence } from '../../persistence/accounts/account.entity';

/** The first and last name of a body, the reference spellings firsName/LastName accepted. */
function namesOf(dto: Pick<AccountProfileDto, 'firstName' | 'firsName' | 'lastName' | 'LastName'>) {
  return { firstName: dto.firstName ?? dto.firsName, lastName: dto.lastName ?? dto.LastName };
}

function residenceOf(dto: ResidenceDto | null | undefined, previous: StoredResidence | null): StoredResidence | null {
  if (!dto) return null;
  return {
    id: previous?.id ?? randomUUID(),
    buildingNumber: dto.buildingNumber ?? null,
    streetName: dto.streetName ?? null,
    unitNumber: dto.unitNumber ?? null,
    city: dto.city ?? null,
    provinceState: dto.provinceState ?? null,
    postalZip: dto.postalZip ?? null,
    country: dto.country ?? null,
  };
}

/**
 * What an entry keeps from its stored twin: its `_id` and its `verified` flag.
 * `verified` is server-owned (only a valid MFA code sets it): a body's value is
 * a read-only echo and never read; a new entry starts unverified.
 */
function kept(previous: { _id: string; verified: boolean } | undefined) {
  return { _id: previous?._id ?? randomUUID(), verified: previous?.verified ?? false };
}

/** Email entries; an address kept from before (case-insensitive) keeps its `_id` and `verified`. */
export function emailsOf(entries: EmailEntryDto[], previous: StoredEmail[] = []): StoredEmail[] {
  return entries.map((e) => {
    const { _id, verified } = kept(previous.find((p) => sameAddress(p.address, e.address)));
    return { _id, address: e.address, primary: e.primary ?? false, verified };
  });
}

/** Phone entries; a number kept from before keeps its `_id` and `verified`. */
export function phonesOf(entries: PhoneEntryDto[], previous: StoredPhone[] = []): StoredPhone[] {
  return entries.map((e) => {
    const { _id, verified } = kept(previous.find((p) => p.number === e.number));
    return { _id, number: e.number, ext: e.ext, mobile: e.mobile, primary: e.primary ?? false, verified };
  });
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * Writes the profile fields of a create or update body onto an account: every
 * updatable field is replaced (an absent optional field becomes null). Read-only
 * echoes of the body are never read.
 */
export function applyProfile(target: AccountEntity, dto: AccountProfileDto): void {
  const { firstName, lastName } = namesOf(dto);
  target.firstName = firstName as string;
  target.lastName = lastName as string;
  target.profilePhoto = dto.profilePhoto ?? null;
  target.dateOfBirth = dto.dateOfBirth ? parseDayMonthYear(dto.dateOfBirth) : null;
  target.maritalStatus = dto.maritalStatus ?? null;
  target.gender = dto.gender ?? null;
  target.primaryResidence = residenceOf(dto.primaryResidence, target.primaryResidence ?? null);
  target.phones = phonesOf(dto.phones ?? [], target.phones ?? []);
  target.referralCode = dto.referralCode ?? null;
  target.cobrandId = dto.cobrandId ?? null;
  target.defaultTeam = dto.defaultTeam ?? null;
}

/**
 * Erases the personal fields of an account being deleted: names, username (replaced by
 * a placeholder naming the account, which frees the username in the tenant), photo,
 * date of birth, marital status, gender, residence, emails and phones. Kept: the id,
 * tenant and openId (the identity stays bound to this account), `customerId`,
 * `referralCode`, `cobrandId` and `defaultTeam` (business references, not about the person).
 */
export function erasePersonalData(target: AccountEntity): void {
  target.username = deletedUsername(target.id);
  target.firstName = '';
  target.lastName = '';
  target.profilePhoto = null;
  target.dateOfBirth = null;
  target.maritalStatus = null;
  target.gender = null;
  target.primaryResidence = null;
  target.emails = [];
  target.phones = [];
}

/** The username a deleted account keeps in place of its own (never a valid email address). */
export const deletedUsername = (accountId: string): string => `deleted:${accountId}`;
