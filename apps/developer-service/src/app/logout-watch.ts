import { INestApplication } from '@nestjs/common';
import { LogoutRevocations } from '../capabilities/logouts/logout-revocations';

/** Starts the watch of logouts in the background (it waits for the user module's revocation bucket). */
export function startLogoutWatch(app: INestApplication): LogoutRevocations {
  const logouts = app.get(LogoutRevocations);
  logouts.start();
  return logouts;
}
