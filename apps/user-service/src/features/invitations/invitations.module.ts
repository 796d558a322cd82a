import { Module } from '@nestjs/common';
import { MessagingModule } from '../../capabilities/messaging/messaging.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';

@Module({
  imports: [PersistenceModule, MessagingModule],
  controllers: [InvitationsController],
  providers: [InvitationsService],
})
export class InvitationsModule {}
