import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccountStateEvent, SUBJECTS } from '@vault/contracts';
import { insertOutboxEvents } from '@vault/platform/events';
import type { AccountEntity } from '../../persistence/accounts/account.entity';
import type { Tx } from '@vault/platform/persistence';

/** Outbox table of account events (and its NOTIFY channel). */
export const ACCOUNT_OUTBOX_TABLE = 'account_outbox_events';

type AccountSubject = typeof SUBJECTS.accountCreated | typeof SUBJECTS.accountUpdated | typeof SUBJECTS.accountDeleted;

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

/** An account event of each account state, as outbox rows. */
export function accountEvents(subject: AccountSubject, states: AccountState[], at = new Date()) {
  return states.map((state) => {
    const payload: AccountStateEvent = { ...state, occurredAt: at.toISOString() };
    return { id: randomUUID(), subject, payload, occurredAt: at };
  });
}

/**
 * Writes account events into the outbox in the transaction of the change: the event
 * commits with the change or not at all, and the relay publishes it to JetStream once
 * NATS takes it.
 */
@Injectable()
export class AccountOutbox {
  created(tx: Tx, a: AccountEntity): Promise<void> {
    return this.write(tx, SUBJECTS.accountCreated, [accountState(a)]);
  }

  updated(tx: Tx, accounts: AccountEntity[]): Promise<void> {
    return this.write(tx, SUBJECTS.accountUpdated, accounts.map(accountState));
  }

  /** `account.deleted`: each state must be inactive (the contract's AccountDeletedEvent). */
  deleted(tx: Tx, states: AccountState[]): Promise<void> {
    if (states.some((s) => s.active)) throw new Error('account.deleted carries inactive accounts only');
    return this.write(tx, SUBJECTS.accountDeleted, states);
  }

  private write(tx: Tx, subject: AccountSubject, states: AccountState[]): Promise<void> {
    return insertOutboxEvents(tx, ACCOUNT_OUTBOX_TABLE, accountEvents(subject, states));
  }
}
