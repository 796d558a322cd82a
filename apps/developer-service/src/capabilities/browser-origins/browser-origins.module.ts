import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { OriginsPublisher } from './origins-publisher';

/** The browser origins of the client applications, published for the gateway's CORS answers. */
@Module({
  imports: [PersistenceModule],
  providers: [OriginsPublisher],
  exports: [OriginsPublisher],
})
export class BrowserOriginsModule {}
