import { Equals, IsBoolean, IsInt, IsISO8601, IsNotEmpty, IsString, IsUUID, Min } from 'class-validator';

/**
 * The state of an account as every account event carries it (stream ACCOUNT_EVENTS,
 * subjects `account.*` of SUBJECTS, JSON; the JetStream `Nats-Msg-Id` is the event id).
 * Each event holds the whole state after the change, never a difference: a consumer
 * keeps, per account, the event with the highest `version` and ignores older or
 * repeated ones (events of one account may arrive twice or out of order).
 */
export abstract class AccountStateEvent {
  @IsUUID()
  accountId!: string;

  @IsString()
  @IsNotEmpty()
  tenantId!: string;

  /** The identity the account belongs to (`<provider>|<id>`, the token's `sub`). */
  @IsString()
  @IsNotEmpty()
  openId!: string;

  /** The account's username (usually an email address; unique per tenant, case-insensitive). */
  @IsString()
  @IsNotEmpty()
  username!: string;

  @IsString()
  firstName!: string;

  @IsString()
  lastName!: string;

  @IsBoolean()
  active!: boolean;

  /**
   * The account's version after the change (1 at creation, greater after every change
   * of the account): orders the events of one account.
   */
  @IsInt()
  @Min(1)
  version!: number;

  /** When the change happened (ISO 8601). */
  @IsISO8601({ strict: true })
  occurredAt!: string;
}

/** `account.created.v1`: an account was created (version 1). */
export class AccountCreatedEvent extends AccountStateEvent {}

/**
 * `account.updated.v2`: a field of the state changed (names, username); also what the
 * backfill sends for every existing account, with its current version.
 */
export class AccountUpdatedEvent extends AccountStateEvent {}

/**
 * `account.deleted.v1`: the account no longer exists; its last state with `active`
 * false and a version above every earlier event of the account.
 */
export class AccountDeletedEvent extends AccountStateEvent {
  @Equals(false)
  override active = false as const;
}
