import { Module } from '@nestjs/common';
import { SessionController } from './session.controller';

/** Logout: token revocation shared by every module (RevocationService of the platform). */
@Module({ controllers: [SessionController] })
export class SessionModule {}
