import { Module } from '@nestjs/common';
import { OwnAccountModule } from '../../capabilities/own-account/own-account.module';
import { ContactsController } from './contacts.controller';
import { ContactsService } from './contacts.service';

/** Email addresses and phone numbers of an account. */
@Module({
  imports: [OwnAccountModule],
  controllers: [ContactsController],
  providers: [ContactsService],
})
export class ContactsModule {}
