import { loadEnv, ServiceEnv } from '@vault/platform/config';
import { connectDatabase, dataSourceOptions, Transactions } from '@vault/platform/persistence';
import { PurgeQueueRepository } from '../../persistence/record-files/purge-queue.repository';
import { BlobEnvelopeRepository } from '../../persistence/vault-keys/blob-envelope.repository';
import { VaultKeyRepository } from '../../persistence/vault-keys/vault-key.repository';
import { BlobEncryptionJob } from '../storage/blob-encryption.job';
import { storageFromEnv } from '../storage/storage.module';
import { FilesEnv } from '../storage/storage.env';
import { BlobCipherService } from './blob-cipher.service';
import { EncryptionEnv } from './encryption.env';
import { keyEncryptionKeysFromEnv } from './keyring-config';
import { VaultKeysService } from './vault-keys.service';

/** The argument of main.js that runs a vault-key command instead of the service. */
export const VAULT_KEYS_MODE = 'vault-keys';

const USAGE = `usage: node main.js vault-keys <status | rotate | encrypt-existing | export-identity <vaultId>>
  status             live vault keys per key-encryption key (JSON)
  rotate             rewraps every vault key not under its tenant's active KEK (resumable;
                     exit 1 when some key did not unwrap)
  encrypt-existing   encrypts every plaintext blob now, with progress (resumable)
  export-identity    prints the vault's age identity (AGE-SECRET-KEY-1...) for the age CLI`;

interface Tools {
  keys: VaultKeysService;
  job: () => BlobEncryptionJob;
}

async function runCommand({ keys, job }: Tools, args: string[]): Promise<number> {
  const [command, vaultId] = args;
  if (command === 'encrypt-existing') {
    const pass = await job().pass((p) => process.stderr.write(`encrypted ${p.encrypted} blobs\n`));
    process.stdout.write(`${JSON.stringify(pass, null, 2)}\n`);
    return pass.mismatched > 0 ? 1 : 0;
  }
  if (command === 'status') {
    process.stdout.write(`${JSON.stringify({ keysByKek: await keys.keysByKek() }, null, 2)}\n`);
    return 0;
  }
  if (command === 'rotate') {
    const result = await keys.rotateAll(100, (total) => process.stderr.write(`rewrapped ${total} vault keys\n`));
    process.stdout.write(`${JSON.stringify({ ...result, keysByKek: await keys.keysByKek() }, null, 2)}\n`);
    return result.failed.length > 0 ? 1 : 0;
  }
  if (command === 'export-identity' && vaultId) {
    process.stdout.write(`${await keys.exportIdentity(vaultId)}\n`);
    return 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 64;
}

/**
 * `main.js vault-keys …`: key operations from a shell (a deploy job, an operator), with
 * the service's DATABASE_URL and key settings; no NATS, no HTTP.
 */
export async function runVaultKeysCommand(args: string[]): Promise<void> {
  const env = loadEnv(ServiceEnv);
  const kms = await keyEncryptionKeysFromEnv(loadEnv(EncryptionEnv));
  const db = await connectDatabase(dataSourceOptions(env.DATABASE_URL, { entities: [], migrations: [] }, false));
  try {
    const tx = new Transactions(db);
    const encryptionEnv = loadEnv(EncryptionEnv);
    const keys = new VaultKeysService(kms, new VaultKeyRepository(tx), tx, encryptionEnv);
    const job = () => {
      const storage = storageFromEnv(loadEnv(FilesEnv));
      const cipher = new BlobCipherService(keys, encryptionEnv);
      return new BlobEncryptionJob(
        tx,
        storage,
        new PurgeQueueRepository(tx),
        new BlobEnvelopeRepository(tx),
        cipher,
        encryptionEnv,
      );
    };
    process.exitCode = await runCommand({ keys, job }, args);
  } catch (err) {
    process.stderr.write(`vault-keys ${args[0] ?? ''} failed: ${String(err)}\n`);
    process.exitCode = 2;
  } finally {
    await db.destroy();
    await kms.close();
  }
}
