// First: starts OpenTelemetry (when configured) before http, express and pg are loaded.
import '@vault/platform/tracing';
import { runService } from '@vault/platform/bootstrap';
import { ACCOUNT_EVENTS_BACKFILL_MODE, runAccountEventsBackfill } from './app/account-events-backfill.mode';
import { AppModule } from './app/app.module';
import { APP_DESCRIPTION } from './app/app.description';
import { MIGRATIONS } from './migrations';
import { ENTITIES } from './persistence/entities';

if (process.argv[2] === ACCOUNT_EVENTS_BACKFILL_MODE) {
  void runAccountEventsBackfill();
} else {
  void runService(AppModule, APP_DESCRIPTION, {
    database: { entities: ENTITIES, migrations: MIGRATIONS },
  });
}
