import { Injectable } from '@nestjs/common';
import type { EmailEntryDto, PhoneEntryDto, Principal } from '@vault/contracts';
import { MAX_CONTACT_ENTRIES } from '@vault/contracts';
import { emailsOf, phonesOf, sameAddress } from '../../capabilities/own-account/account-profile';
import { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { AccountEntity } from '../../persistence/accounts/account.entity';
import { emailExists, entryNotFound, phoneExists, tooManyEntries } from './contacts.errors';

interface Entry {
  primary: boolean;
}

/**
 * Appends an entry: a new primary entry demotes the previous primary (one
 * primary at most); the list has a bounded size.
 */
function appendEntry<T extends Entry>(list: T[], entry: T, what: string): T[] {
  if (list.length >= MAX_CONTACT_ENTRIES) throw tooManyEntries(what);
  const rest = entry.primary ? list.map((e) => ({ ...e, primary: false })) : list;
  return [...rest, entry];
}

/** Removes the entries matching; 404 when none does. */
function removeEntry<T>(list: T[], matches: (e: T) => boolean, what: string): T[] {
  const kept = list.filter((e) => !matches(e));
  if (kept.length === list.length) throw entryNotFound(what);
  return kept;
}

/** Email addresses and phone numbers of the caller's account; each appears once. */
@Injectable()
export class ContactsService {
  constructor(private readonly own: OwnAccountService) {}

  addEmail(p: Principal, id: string, dto: EmailEntryDto): Promise<AccountEntity> {
    return this.own.mutate(p, id, (a) => {
      if (a.emails.some((e) => sameAddress(e.address, dto.address))) throw emailExists();
      a.emails = appendEntry(a.emails, emailsOf([dto])[0], 'email addresses');
    });
  }

  removeEmail(p: Principal, id: string, address: string): Promise<AccountEntity> {
    return this.own.mutate(p, id, (a) => {
      a.emails = removeEntry(a.emails, (e) => sameAddress(e.address, address), 'email address');
    });
  }

  addPhone(p: Principal, id: string, dto: PhoneEntryDto): Promise<AccountEntity> {
    return this.own.mutate(p, id, (a) => {
      if (a.phones.some((e) => e.number === dto.number)) throw phoneExists();
      a.phones = appendEntry(a.phones, phonesOf([dto])[0], 'phone numbers');
    });
  }

  removePhone(p: Principal, id: string, phoneNumber: number): Promise<AccountEntity> {
    return this.own.mutate(p, id, (a) => {
      a.phones = removeEntry(a.phones, (e) => e.number === phoneNumber, 'phone number');
    });
  }
}
