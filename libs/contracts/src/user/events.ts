/** Payload of `SUBJECTS.accountCreated` (core NATS, JSON). */
export interface AccountCreatedEvent {
  accountId: string;
  tenantId: string;
  openId: string;
  username: string;
  occurredAt: string;
}

/** What part of an account an update touched. */
export const ACCOUNT_UPDATE_PARTS = ['profile', 'emails', 'phones', 'settings', 'agreements'] as const;
export type AccountUpdatePart = (typeof ACCOUNT_UPDATE_PARTS)[number];

/** Payload of `SUBJECTS.accountUpdated` (core NATS, JSON). */
export interface AccountUpdatedEvent {
  accountId: string;
  tenantId: string;
  openId: string;
  part: AccountUpdatePart;
  occurredAt: string;
}
