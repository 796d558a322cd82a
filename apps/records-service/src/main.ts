// First: starts OpenTelemetry (when configured) before http, express and pg are loaded.
import '@vault/platform/tracing';
import { runService } from '@vault/platform/bootstrap';
import { fixHeapGrowingFactor } from '@vault/platform/runtime';
import { AppModule } from './app/app.module';
import { APP_DESCRIPTION } from './app/app.description';
import { startJetStreamConsumers } from './app/jetstream-consumers';
import { isWorkerMode, runActivityLogWorker } from './features/activity-log-pipeline/activity-log.worker';
import { EXTRACTOR_MODE, runExtractorProcess } from './capabilities/text-extraction/extractor.child';
import { isSearchMode, runSearchMode } from './features/search/search.worker';
import { runVaultKeysCommand, VAULT_KEYS_MODE } from './capabilities/encryption/vault-keys.command';
import { runStorageAudit, STORAGE_AUDIT_MODE } from './capabilities/storage/storage-audit.command';
import { ENTITIES } from './persistence/entities';
import { MIGRATIONS } from './migrations';

// File bytes stream through this process: keep V8 from collecting the whole heap every
// few dozen milliseconds while several transfers run (see fixHeapGrowingFactor).
fixHeapGrowingFactor(100);

if (process.argv[2] === EXTRACTOR_MODE) {
  runExtractorProcess();
} else if (isSearchMode(process.argv[2])) {
  void runSearchMode(process.argv[2]);
} else if (process.argv[2] === VAULT_KEYS_MODE) {
  void runVaultKeysCommand(process.argv.slice(3));
} else if (process.argv[2] === STORAGE_AUDIT_MODE) {
  void runStorageAudit();
} else if (isWorkerMode(process.argv[2])) {
  void runActivityLogWorker(process.argv[2]);
} else {
  void runService(AppModule, APP_DESCRIPTION, {
    database: { entities: ENTITIES, migrations: MIGRATIONS },
    // The JetStream consumers of the service (the writer with ACTIVITY_LOG_WRITER=inline).
    configure: async (app) => {
      await startJetStreamConsumers(app);
    },
  });
}
