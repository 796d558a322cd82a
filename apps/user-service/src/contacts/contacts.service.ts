import { Injectable } from '@nestjs/common';
import type { EmailEntryDto, PhoneEntryDto, Principal } from '@vault/contracts';
import { MAX_CONTACT_ENTRIES, USER_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { AccountEntity } from '../accounts/account.entity';
import { emailsOf, phonesOf, sameAddress } from '../accounts/account-profile';
import { AccountsService } from '../accounts/accounts.service';

interface Entry {
  primary: boolean;
}

/**
 * Appends an entry: a new primary entry demotes the previous primary (one
 * primary at most); the list has a bounded size.
 */
function appendEntry<T extends Entry>(list: T[], entry: T, what: string): T[] {
  if (list.length >= MAX_CONTACT_ENTRIES) {
    throw ProblemException.conflict(USER_ERROR_CODES.tooManyEntries, `An account holds at most ${MAX_CONTACT_ENTRIES} ${what}.`);
  }
  const rest = entry.primary ? list.map((e) => ({ ...e, primary: false })) : list;
  return [...rest, entry];
}

/** Removes the entries matching; 404 when none does. */
function removeEntry<T>(list: T[], matches: (e: T) => boolean, what: string): T[] {
  const kept = list.filter((e) => !matches(e));
  if (kept.length === list.length) throw ProblemException.notFound(`The account has no such ${what}.`);
  return kept;
}

/** Email addresses and phone numbers of the caller's account; each appears once. */
@Injectable()
export class ContactsService {
  constructor(private readonly accounts: AccountsService) {}

  addEmail(p: Principal, id: string, dto: EmailEntryDto): Promise<AccountEntity> {
    return this.accounts.mutate(p, id, (a) => {
      if (a.emails.some((e) => sameAddress(e.address, dto.address))) {
        throw ProblemException.conflict(USER_ERROR_CODES.emailExists, 'The account already has this email address.');
      }
      a.emails = appendEntry(a.emails, emailsOf([dto])[0], 'email addresses');
    });
  }

  removeEmail(p: Principal, id: string, address: string): Promise<AccountEntity> {
    return this.accounts.mutate(p, id, (a) => {
      a.emails = removeEntry(a.emails, (e) => sameAddress(e.address, address), 'email address');
    });
  }

  addPhone(p: Principal, id: string, dto: PhoneEntryDto): Promise<AccountEntity> {
    return this.accounts.mutate(p, id, (a) => {
      if (a.phones.some((e) => e.number === dto.number)) {
        throw ProblemException.conflict(USER_ERROR_CODES.phoneExists, 'The account already has this phone number.');
      }
      a.phones = appendEntry(a.phones, phonesOf([dto])[0], 'phone numbers');
    });
  }

  removePhone(p: Principal, id: string, phoneNumber: number): Promise<AccountEntity> {
    return this.accounts.mutate(p, id, (a) => {
      a.phones = removeEntry(a.phones, (e) => e.number === phoneNumber, 'phone number');
    });
  }
}
