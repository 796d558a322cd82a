import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorParam, NextCursor, PageInfoDto, PageNumber, PageSize } from '../paging/page-info';

/**
 * Event types a webhook subscription can name (`<entity>.<action>`, docs/webhooks.md);
 * `*` subscribes to every type, including types added later.
 */
export const WEBHOOK_EVENT_TYPES = [
  'vault.created',
  'vault.updated',
  'vault.deleted',
  'vault.transferred',
  'record.created',
  'record.updated',
  'record.deleted',
  'record.transferred',
  'file.created',
  'file.updated',
  'file.deleted',
  'file.version.created',
  'file.version.restored',
  'file.text.extracted',
  'collaborator.created',
  'collaborator.updated',
  'collaborator.deleted',
  'vault.trashed',
  'vault.restored',
  'vault.purged',
  'record.trashed',
  'record.restored',
  'record.purged',
  'file.trashed',
  'file.restored',
  'file.purged',
  'vault.key.exported',
  'file.exported',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_ALL_EVENTS = '*';

const EVENT_CHOICES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_ALL_EVENTS];

/**
 * Why a subscription stopped delivering (docs/webhooks.md, Disabled subscriptions):
 * `receiver_gone` (the receiver answered 410 Gone), `deliveries_failing` (failing for
 * WEBHOOK_DISABLE_AFTER_MS without a success), `disabled_by_owner` (`enabled: false`),
 * `creator_account_deleted` (the account that created it was deleted).
 */
export const WEBHOOK_DISABLED_CODES = [
  'receiver_gone',
  'deliveries_failing',
  'disabled_by_owner',
  'creator_account_deleted',
] as const;
export type WebhookDisabledCode = (typeof WEBHOOK_DISABLED_CODES)[number];

/** POST .../webhooks and PUT .../webhooks/webhook-id/{id}. */
export class WebhookDto {
  @ApiProperty({
    description:
      'Receiver address: https (http only for targets WEBHOOK_ALLOWED_TARGETS allows). ' +
      'It must not resolve to a loopback, private, link-local or metadata address.',
    maxLength: 2048,
    example: 'https://hooks.example.com/vault',
  })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiProperty({
    description: 'Event types delivered, or ["*"] for every type.',
    enum: EVENT_CHOICES,
    isArray: true,
    example: ['record.created', 'record.updated'],
  })
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENT_CHOICES.length)
  @ArrayUnique()
  @IsIn(EVENT_CHOICES, { each: true })
  events!: string[];

  @ApiPropertyOptional({ maxLength: 500, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;
}

/** PUT .../webhooks/webhook-id/{id}: the fields of a subscription, and `enabled` to resume a disabled one. */
export class UpdateWebhookDto extends WebhookDto {
  @ApiPropertyOptional({
    description:
      'false pauses deliveries; true resumes a subscription that was disabled (its reason is cleared). ' +
      'Resuming one disabled for `creator_account_deleted` makes the caller its creator (takes it over).',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** A webhook subscription as the API answers it (never with its secret, except on create and rotate). */
export class WebhookView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) vaultId!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: EVENT_CHOICES, isArray: true }) events!: string[];
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({
    description: "false once disabled (410 Gone, failing for days, by the owner, or its creator's account deleted).",
  })
  enabled!: boolean;
  @ApiProperty({
    nullable: true,
    enum: WEBHOOK_DISABLED_CODES,
    description:
      'Why deliveries stopped, as a stable code, when disabled (null while enabled). `creator_account_deleted`: the ' +
      "account that created it was deleted; nothing is sent until the vault's owner resumes it (taking it over) or deletes it.",
  })
  disabledCode!: WebhookDisabledCode | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why deliveries stopped, in words, when disabled.' })
  disabledReason!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) disabledAt!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'Since when deliveries have been failing without a success in between.',
  })
  failingSince!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** The answer of create and rotate-secret: the only times the secret is shown. */
export class WebhookWithSecretView extends WebhookView {
  @ApiProperty({
    description: '`whsec_` + base64 of 32 random bytes: the Standard Webhooks signing key. Shown only here.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string;
}

/** One event for one subscription, with the outcome of its latest attempt. */
export class WebhookDeliveryView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The event id: the webhook-id header of every attempt.' })
  eventId!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) eventType!: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) status!: 'pending' | 'delivered' | 'failed';
  @ApiProperty() attempts!: number;
  @ApiProperty({ nullable: true, type: Number }) lastStatusCode!: number | null;
  @ApiProperty({ nullable: true, type: String }) lastError!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The start of the last response body, at most 256 characters.' })
  lastResponseExcerpt!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) nextAttemptAt!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) deliveredAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

/** GET .../deliveries query. */
export class WebhookDeliveriesQuery {
  @PageNumber() page?: number;
  @CursorParam(
    'Continue after the page that answered this `nextCursor` (keyset: no delivery is skipped or repeated when new ones arrive). Not together with `page`.',
  )
  cursor?: string;
  @PageSize() pageSize?: number;
}

/**
 * GET .../deliveries: newest event first, `{data, page, nextCursor}` like every list.
 * `items` and `pageInfo` (the first shape of this list) repeat `data` and `page` until
 * their sunset (docs/webhooks.md, "Delivery log").
 */
export class WebhookDeliveryPage {
  @ApiProperty({ type: [WebhookDeliveryView] }) data!: WebhookDeliveryView[];
  @ApiProperty({ type: PageInfoDto }) page!: PageInfoDto;
  @NextCursor() nextCursor!: string | null;
  @ApiProperty({ type: [WebhookDeliveryView], deprecated: true, description: 'Deprecated: the same as `data` (Sunset header).' })
  items!: WebhookDeliveryView[];
  @ApiProperty({ type: PageInfoDto, deprecated: true, description: 'Deprecated: the same as `page` (Sunset header).' })
  pageInfo!: PageInfoDto;
}
