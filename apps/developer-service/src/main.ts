// First: starts OpenTelemetry (when configured) before http, express and pg are loaded.
import '@vault/platform/tracing';
import { runService } from '@vault/platform/bootstrap';
import { AppModule } from './app/app.module';
import { startJetStreamConsumers } from './app/jetstream-consumers';
import { startLogoutWatch } from './app/logout-watch';
import { APP_DESCRIPTION } from './app/app.description';
import { ENTITIES } from './persistence/entities';
import { MIGRATIONS } from './migrations';

void runService(AppModule, APP_DESCRIPTION, {
  database: { entities: ENTITIES, migrations: MIGRATIONS },
  configure: async (app) => {
    await startJetStreamConsumers(app);
    startLogoutWatch(app);
  },
});
