import { Module } from '@nestjs/common';
import { OwnAccountModule } from '../../capabilities/own-account/own-account.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AgreementsController } from './agreements.controller';
import { AgreementsService } from './agreements.service';

@Module({
  imports: [PersistenceModule, OwnAccountModule],
  controllers: [AgreementsController],
  providers: [AgreementsService],
})
export class AgreementsModule {}
