import { Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { AccessModule } from '../../capabilities/access/access.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { ChangeFeedController } from './change-feed.controller';
import { ChangeFeedEnv } from './change-feed.env';
import { ChangeFeedService } from './change-feed.service';
import { ChangeFeedStream } from './change-feed.stream';
import { ChangeFeedWriter } from './change-feed.writer';
import { FeedSignal } from './feed-signal';
import { VaultFeedReaders } from './vault-feed-readers';

/** The change feed of each vault: its writer on the vault events, pages and live stream (docs/change-feed.md). */
@Module({
  imports: [AccessModule, PersistenceModule],
  controllers: [ChangeFeedController, ChangeFeedWriter],
  providers: [
    { provide: ChangeFeedEnv, useFactory: () => loadEnv(ChangeFeedEnv) },
    ChangeFeedService,
    ChangeFeedStream,
    FeedSignal,
    VaultFeedReaders,
  ],
})
export class ChangeFeedModule {}
