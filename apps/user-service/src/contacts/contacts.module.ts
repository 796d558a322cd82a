import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ContactsController } from './contacts.controller';
import { ContactsService } from './contacts.service';

/** Email addresses and phone numbers of an account. */
@Module({
  imports: [AccountsModule],
  controllers: [ContactsController],
  providers: [ContactsService],
})
export class ContactsModule {}
