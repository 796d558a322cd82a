// First: starts OpenTelemetry (when configured) before http, express and pg are loaded.
import '@vault/platform/tracing';
import { fixHeapGrowingFactor, runService } from '@vault/platform';
import { AppModule } from './app/app.module';
import { APP_DESCRIPTION } from './app/app.description';
import { startActivityLogWriter } from './activity-log-pipeline/activity-log.transport';
import { isWorkerMode, runActivityLogWorker } from './activity-log-pipeline/activity-log.worker';
import { ENTITIES } from './persistence/entities';
import { MIGRATIONS } from './migrations';

// File bytes stream through this process: keep V8 from collecting the whole heap every
// few dozen milliseconds while several transfers run (see fixHeapGrowingFactor).
fixHeapGrowingFactor(100);

if (isWorkerMode(process.argv[2])) {
  void runActivityLogWorker(process.argv[2]);
} else {
  void runService(AppModule, APP_DESCRIPTION, {
    database: { entities: ENTITIES, migrations: MIGRATIONS },
    // ACTIVITY_LOG_WRITER=inline: the writer's JetStream transport runs in this app (hybrid).
    configure: async (app) => {
      await startActivityLogWriter(app);
    },
  });
}
