import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { newKeyring, parseKeyring } from './secret-box';

/** Where the development keyring is kept (like the gateway's self-signed certificate under .data). */
export const DEV_KEYRING_FILE = '.data/webhook-secret-keys';

/**
 * The keyring outside production when WEBHOOK_SECRET_KEYS is unset: the one in `file`,
 * made at the first start (one random key, id `dev`) and reused afterwards. Several
 * processes starting at once end up with the same key: the file is written aside and
 * hard-linked into place, which fails when another process got there first.
 */
export async function devKeyring(file = DEV_KEYRING_FILE): Promise<string> {
  const path = resolve(file);
  const existing = await readKeyring(path);
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, `${newKeyring('dev')}\n`, { mode: 0o600 });
  try {
    await link(tmp, path);
    new Logger('WebhookSecrets').warn(
      `WEBHOOK_SECRET_KEYS is not set: webhook secrets are encrypted with a development key made in ${path} ` +
        '(keep it: the stored secrets cannot be read without it; production requires WEBHOOK_SECRET_KEYS)',
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(tmp);
  }
  const made = await readKeyring(path);
  if (!made) throw new Error(`${path}: the development keyring could not be read back`);
  return made;
}

async function readKeyring(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    parseKeyring(text);
  } catch (err) {
    throw new Error(`${path} (the development keyring of webhook secrets): ${(err as Error).message}`);
  }
  return text;
}
