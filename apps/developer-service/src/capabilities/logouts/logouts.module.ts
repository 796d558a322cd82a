import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { LogoutRevocations } from './logout-revocations';

/** Logouts of the user module end the refresh tokens of that identity at that application. */
@Module({
  imports: [PersistenceModule],
  providers: [LogoutRevocations],
  exports: [LogoutRevocations],
})
export class LogoutsModule {}
