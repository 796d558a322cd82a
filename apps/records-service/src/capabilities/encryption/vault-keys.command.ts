import { loadEnv, ServiceEnv } from '@vault/platform/config';
import { connectDatabase, dataSourceOptions, Transactions } from '@vault/platform/persistence';
import { VaultKeyRepository } from '../../persistence/vault-keys/vault-key.repository';
import { EncryptionEnv } from './encryption.env';
import { keyEncryptionKeysFromEnv } from './keyring-config';
import { VaultKeysService } from './vault-keys.service';

/** The argument of main.js that runs a vault-key command instead of the service. */
export const VAULT_KEYS_MODE = 'vault-keys';

const USAGE = `usage: node main.js vault-keys <status | rotate | export-identity <vaultId>>
  status             live vault keys per key-encryption key (JSON)
  rotate             rewraps every vault key not under its tenant's active KEK (resumable;
                     exit 1 when some key did not unwrap)
  export-identity    prints the vault's age identity (AGE-SECRET-KEY-1...) for the age CLI`;

async function runCommand(keys: VaultKeysService, args: string[]): Promise<number> {
  const [command, vaultId] = args;
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
    const keys = new VaultKeysService(kms, new VaultKeyRepository(tx), tx, loadEnv(EncryptionEnv));
    process.exitCode = await runCommand(keys, args);
  } catch (err) {
    process.stderr.write(`vault-keys ${args[0] ?? ''} failed: ${String(err)}\n`);
    process.exitCode = 2;
  } finally {
    await db.destroy();
    await kms.close();
  }
}
