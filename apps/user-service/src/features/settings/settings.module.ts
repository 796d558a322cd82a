import { Module } from '@nestjs/common';
import { OwnAccountModule } from '../../capabilities/own-account/own-account.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';

@Module({
  imports: [PersistenceModule, OwnAccountModule],
  controllers: [SettingsController],
  providers: [SettingsService],
})
export class SettingsModule {}
