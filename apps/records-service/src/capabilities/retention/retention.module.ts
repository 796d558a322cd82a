import { Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { PersistenceModule } from '../../persistence/persistence.module';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { EncryptionModule } from '../encryption/encryption.module';
import { EventsModule } from '../events/events.module';
import { PlansModule } from '../plans/plans.module';
import { ItemPurger } from './item-purger';
import { RetentionService } from './retention.service';
import { TrashEvents } from './trash-events';
import { TrashEnv } from './trash.env';
import { Trasher } from './trasher';

/** The trash, retention and legal holds as features use them: trash on delete, purge checks, events. */
@Module({
  imports: [PersistenceModule, PlansModule, EventsModule, CatalogueModule, EncryptionModule],
  providers: [{ provide: TrashEnv, useFactory: () => loadEnv(TrashEnv) }, RetentionService, TrashEvents, Trasher, ItemPurger],
  exports: [TrashEnv, RetentionService, TrashEvents, Trasher, ItemPurger],
})
export class RetentionModule {}
