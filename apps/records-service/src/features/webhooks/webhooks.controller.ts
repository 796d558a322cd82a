import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiGoneResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  Principal,
  UpdateWebhookDto,
  WebhookDeliveriesQuery,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookDto,
  WebhookView,
  WebhookWithSecretView,
} from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import { ApiCreated, DEPRECATION_HEADERS, headersOf, SendsDeprecation } from '@vault/platform/openapi';
import { Idempotent } from '@vault/platform/idempotency';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { SecretAnswers } from './secret-box/secret-answers';
import { WebhooksService } from './webhooks.service';

const REFUSED_TARGET =
  'webhook_target_refused: the url is not https, does not resolve, or resolves to a loopback, private, ' +
  'link-local or metadata address (unless WEBHOOK_ALLOWED_TARGETS allows it).';
const NOT_OWNER = 'forbidden: only the vault owner manages webhooks.';
/** `items` and `pageInfo` of the delivery log: deprecated for `data` and `page`, sent for twelve months more. */
const DELIVERIES_DEPRECATION = { since: new Date('2026-11-27T00:00:00Z'), sunset: new Date('2027-11-27T00:00:00Z') };
const NO_WEBHOOK = 'vault_not_found, or webhook_not_found: the vault has no webhook with this id.';

/** Webhook subscriptions of a vault (docs/webhooks.md); every route is the owner's. */
@ApiTags('webhooks')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@ApiForbiddenResponse({ description: NOT_OWNER })
@Controller('vault/vault-id/:vaultId/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @ApiCreated({
    location: (r: WebhookView, p: Record<string, string>) => `/vault/vault-id/${p['vaultId']}/webhooks/webhook-id/${r.id}`,
    type: WebhookWithSecretView,
  })
  @Post()
  @Idempotent({ storedAnswer: SecretAnswers })
  @Access('vault:owner')
  @ApiOperation({
    summary: 'Subscribe a url to events of the vault; the answer shows the signing secret, this once.',
    description:
      'With Idempotency-Key, the answer kept for a repeat holds the secret encrypted (docs/webhooks.md, Secrets at rest); ' +
      'a repeat answers the same secret.',
  })
  @ApiBadRequestResponse({ description: REFUSED_TARGET })
  @ApiGoneResponse({
    description:
      'webhook_secret_unavailable: a repeat (same Idempotency-Key) whose stored answer shows a secret that can no longer be ' +
      'decrypted (its key left WEBHOOK_SECRET_KEYS); the subscription exists: rotate its secret for a new one.',
  })
  create(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: WebhookDto,
  ): Promise<WebhookWithSecretView> {
    return this.webhooks.create(access, principal, body);
  }

  @Get()
  @Access('vault:owner')
  @ApiOperation({
    summary: "The vault's webhook subscriptions, oldest first (without secrets).",
    description:
      'Disabled ones included, with why (`disabledCode`, `disabledReason`): among them those whose creator deleted its ' +
      'account (`creator_account_deleted`), for the owner to resume (taking them over) or delete.',
  })
  @ApiOkResponse({ type: [WebhookView] })
  list(@ResolvedAccess() access: VaultAccess): Promise<WebhookView[]> {
    return this.webhooks.list(access);
  }

  @Get('webhook-id/:webhookId')
  @Access('vault:owner')
  @ApiOperation({ summary: 'One subscription, with why it was disabled when it was.' })
  @ApiOkResponse({ type: WebhookView })
  @ApiNotFoundResponse({ description: NO_WEBHOOK })
  get(@ResolvedAccess() access: VaultAccess, @Param('webhookId') id: string): Promise<WebhookView> {
    return this.webhooks.get(access, id);
  }

  @Put('webhook-id/:webhookId')
  @Access('vault:owner')
  @ApiOperation({
    summary: 'Replace url, events and description; `enabled: true` resumes a disabled subscription.',
    description:
      'A subscription disabled with `disabledCode` `creator_account_deleted` (the account that created it was deleted) ' +
      'sends nothing until the owner resumes it with `enabled: true`: the caller then takes it over (the subscription answers ' +
      "for the caller's account from then on) and its pending deliveries go on; or the owner deletes it (docs/webhooks.md).",
  })
  @ApiOkResponse({ type: WebhookView })
  @ApiBadRequestResponse({ description: REFUSED_TARGET })
  @ApiNotFoundResponse({ description: NO_WEBHOOK })
  update(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookView> {
    return this.webhooks.update(access, principal, id, body);
  }

  @Delete('webhook-id/:webhookId')
  @Access('vault:owner')
  @ApiOperation({
    summary: 'Remove a subscription and its delivery log; nothing more is sent to it.',
    description: "Any subscription of the vault, one whose creator's account was deleted included.",
  })
  @ApiOkResponse({ description: 'Empty body.' })
  @ApiNotFoundResponse({ description: NO_WEBHOOK })
  async remove(@ResolvedAccess() access: VaultAccess, @Param('webhookId') id: string): Promise<void> {
    await this.webhooks.remove(access, id);
  }

  @Post('webhook-id/:webhookId/rotate-secret')
  @HttpCode(200)
  @Access('vault:owner')
  @ApiOperation({
    summary: 'A new signing secret (shown this once); the old one keeps signing beside it for 24 hours.',
  })
  @ApiOkResponse({ type: WebhookWithSecretView })
  @ApiNotFoundResponse({ description: NO_WEBHOOK })
  rotateSecret(@ResolvedAccess() access: VaultAccess, @Param('webhookId') id: string): Promise<WebhookWithSecretView> {
    return this.webhooks.rotateSecret(access, id);
  }

  @Get('webhook-id/:webhookId/deliveries')
  @Access('vault:owner')
  @ApiOperation({
    summary: 'The delivery log of a subscription, newest event first, paged.',
    description:
      '`{data, page, nextCursor}` like every list (send `nextCursor` back as `cursor`). The first shape of this list, ' +
      '`items` and `pageInfo`, is deprecated: it repeats `data` and `page` until the Sunset date (docs/webhooks.md, "Delivery log").',
  })
  @ApiOkResponse({ type: WebhookDeliveryPage, headers: headersOf(DEPRECATION_HEADERS, DEPRECATION_HEADERS) })
  @SendsDeprecation(DELIVERIES_DEPRECATION)
  @ApiNotFoundResponse({ description: NO_WEBHOOK })
  deliveries(
    @ResolvedAccess() access: VaultAccess,
    @Param('webhookId') id: string,
    @Query() query: WebhookDeliveriesQuery,
  ): Promise<WebhookDeliveryPage> {
    return this.webhooks.deliveries(access, id, query);
  }

  @Post('webhook-id/:webhookId/deliveries/delivery-id/:deliveryId/redeliver')
  @HttpCode(202)
  @Access('vault:owner')
  @ApiOperation({
    summary: 'Send a delivery again now (same webhook-id and body, a fresh retry schedule).',
    description:
      'A pending delivery waiting for its retry, and a delivered or given-up one, are due again at once. ' +
      'A delivery being sent at this moment (leased by an attempt) is left as it is: 409.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryView })
  @ApiNotFoundResponse({ description: `${NO_WEBHOOK} webhook_delivery_not_found.` })
  @ApiConflictResponse({
    description:
      'webhook_delivery_in_flight: the delivery is being sent right now (redelivering it could send it twice); ' +
      'retry once the attempt has ended. Retry-After: seconds until its lease runs out, when the attempt has ended at the latest.',
  })
  redeliver(
    @ResolvedAccess() access: VaultAccess,
    @Param('webhookId') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<WebhookDeliveryView> {
    return this.webhooks.redeliver(access, id, deliveryId);
  }
}
