import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccountStateEvent, SUBJECTS } from '@vault/contracts';
import { insertOutboxEvents } from '@vault/platform';
import type { EntityManager } from 'typeorm';
import type { AccountEntity } from '../accounts/account.entity';

/** Outbox table of account events (and its NOTIFY channel). */
export const ACCOUNT_OUTBOX_TABLE = 'account_outbox_events';

type AccountSubject = typeof SUBJECTS.accountCreated | typeof SUBJECTS.accountUpdated;

/** The fields of an account that account events carry (what consumers project). */
export type AccountState = Omit<AccountStateEvent, 'occurredAt'>;

export function accountState(a: AccountEntity): AccountState {
  return {
    accountId: a.id,
    tenantId: a.tenantId,
    openId: a.openId,
    username: a.username,
    firstName: a.firstName,
    lastName: a.lastName,
    active: a.active,
    version: a.version,
  };
}

/** Whether two states differ in a field consumers see (the version aside). */
export function stateChanged(before: AccountState, after: AccountState): boolean {
  const keys = Object.keys(before) as (keyof AccountState)[];
  return keys.some((k) => k !== 'version' && before[k] !== after[k]);
}

/** An account event of each account's state, as outbox rows. */
export function accountEvents(subject: AccountSubject, accounts: AccountEntity[], at = new Date()) {
  return accounts.map((a) => {
    const payload: AccountStateEvent = { ...accountState(a), occurredAt: at.toISOString() };
    return { id: randomUUID(), subject, payload, occurredAt: at };
  });
}

/**
 * Writes account events into the outbox through the manager of the change's
 * transaction: the event commits with the change or not at all, and the relay
 * publishes it to JetStream once NATS takes it.
 */
@Injectable()
export class AccountOutbox {
  created(m: EntityManager, a: AccountEntity): Promise<void> {
    return insertOutboxEvents(m, ACCOUNT_OUTBOX_TABLE, accountEvents(SUBJECTS.accountCreated, [a]));
  }

  updated(m: EntityManager, accounts: AccountEntity[]): Promise<void> {
    return insertOutboxEvents(m, ACCOUNT_OUTBOX_TABLE, accountEvents(SUBJECTS.accountUpdated, accounts));
  }
}
