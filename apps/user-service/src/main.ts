// First: starts OpenTelemetry (when configured) before http, express and pg are loaded.
import '@vault/platform/tracing';
import { runService } from '@vault/platform';
import { AppModule } from './app/app.module';
import { APP_DESCRIPTION } from './app/app.description';
import { ENTITIES } from './app/entities';
import { MIGRATIONS } from './migrations';
import { ACCOUNT_EVENTS_BACKFILL_MODE, runAccountEventsBackfill } from './account-events/account-events-backfill';

if (process.argv[2] === ACCOUNT_EVENTS_BACKFILL_MODE) {
  void runAccountEventsBackfill();
} else {
  void runService(AppModule, APP_DESCRIPTION, {
    database: { entities: ENTITIES, migrations: MIGRATIONS },
  });
}
