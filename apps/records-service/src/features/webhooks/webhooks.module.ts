import { Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { AccessModule } from '../../capabilities/access/access.module';
import { CatalogueModule } from '../../capabilities/catalogue/catalogue.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { PlansModule } from '../../capabilities/plans/plans.module';
import { FanoutHorizon } from './fanout-horizon';
import { SecretAnswers } from './secret-box/secret-answers';
import { SecretBox } from './secret-box/secret-box';
import { SecretReseal } from './secret-box/secret-reseal';
import { secretBoxOf, WebhookSecrets } from './secret-box/webhook-secrets';
import { TargetGuard } from './target-guard';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookFanout } from './webhook-fanout';
import { WebhookResources } from './webhook-resources';
import { WebhooksController } from './webhooks.controller';
import { WebhooksEnv } from './webhooks.env';
import { WebhooksRunner } from './webhooks.runner';
import { WebhooksService } from './webhooks.service';

/** Webhook subscriptions of vaults and their signed, at-least-once delivery (docs/webhooks.md). */
@Module({
  imports: [AccessModule, CatalogueModule, PersistenceModule, PlansModule],
  controllers: [WebhooksController, WebhookFanout],
  providers: [
    { provide: WebhooksEnv, useFactory: () => loadEnv(WebhooksEnv) },
    { provide: TargetGuard, inject: [WebhooksEnv], useFactory: (e: WebhooksEnv) => new TargetGuard(e.WEBHOOK_ALLOWED_TARGETS) },
    { provide: SecretBox, inject: [WebhooksEnv], useFactory: secretBoxOf },
    WebhookSecrets,
    SecretAnswers,
    SecretReseal,
    WebhookResources,
    FanoutHorizon,
    WebhookDispatcher,
    WebhooksService,
    WebhooksRunner,
  ],
  exports: [WebhooksEnv, WebhookDispatcher],
})
export class WebhooksModule {}
