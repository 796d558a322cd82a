import { open, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { toArray } from '@vault/sdk';
import { intOption, parse } from '../support/args';
import { clientFor, print, type Context } from '../support/context';
import { UsageError } from '../support/exit-codes';

const VAULT_TYPES = ['individual', 'business', 'family'] as const;

const SUBCOMMANDS = ['list', 'create', 'get', 'delete'];

/** `vault vaults list|create|get|delete`. */
export async function vaults(ctx: Context, [sub, ...argv]: string[]): Promise<void> {
  if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`vault vaults ${SUBCOMMANDS.join('|')}`);
  const client = clientFor(ctx);
  if (sub === 'list') {
    const { values } = parse(
      argv,
      { shared: { type: 'boolean' }, owned: { type: 'boolean' }, 'page-size': { type: 'string' } },
      [],
    );
    const shared = values.shared ? true : values.owned ? false : undefined;
    const list = await toArray(
      client.vaults.list({ shared, pageSize: intOption(values['page-size'], 'page-size', 50), signal: ctx.signal }),
    );
    return print(
      ctx,
      list.length ? list.map((v) => `${v.id}  ${v.name}  ${(v.userVaultRole ?? []).join(',')}`) : '(no vaults)',
      list,
    );
  }
  if (sub === 'create') {
    const { values, args } = parse(argv, { type: { type: 'string' } }, ['name']);
    const type = values.type as (typeof VAULT_TYPES)[number] | undefined;
    if (type !== undefined && !VAULT_TYPES.includes(type))
      throw new UsageError(`--type must be one of ${VAULT_TYPES.join(', ')}`);
    const id = await client.vaults.create({ name: args[0], ...(type ? { type } : {}) }, { signal: ctx.signal });
    return print(ctx, id, { id });
  }
  if (sub === 'get') {
    const { args } = parse(argv, {}, ['vaultId']);
    const { data, etag } = await client.vaults.get(args[0], { signal: ctx.signal });
    return print(ctx, [`${data.id}  ${data.name}`, `roles: ${(data.userVaultRole ?? []).join(', ')}`, `etag: ${etag}`], {
      ...data,
      etag,
    });
  }
  if (sub === 'delete') {
    const { values, args } = parse(argv, { 'if-match': { type: 'string' } }, ['vaultId']);
    await client.vaults.delete(args[0], { ifMatch: values['if-match'], signal: ctx.signal });
    return print(ctx, `deleted ${args[0]}`, { deleted: args[0] });
  }
  throw new UsageError('vault vaults list|create|get|delete');
}

/**
 * `vault export-identity <vaultId> [--out PATH]` (vault owner): the vault's age identity, to
 * stdout or to a file only its owner can read (mode 0600). Recorded in the vault's activity log.
 */
export async function exportIdentity(ctx: Context, argv: string[]): Promise<void> {
  const { values, args } = parse(argv, { out: { type: 'string' } }, ['vaultId']);
  const client = clientFor(ctx);
  if (!values.out) {
    const identity = await client.vaults.exportIdentity(args[0], { signal: ctx.signal });
    return print(ctx, identity, { identity });
  }
  // the file first (never over an existing one, readable by its owner only), so that a path
  // that cannot be written refuses before the identity is exported (and logged)
  const path = resolve(values.out);
  const file = await open(path, 'wx', 0o600);
  try {
    await file.writeFile(`${await client.vaults.exportIdentity(args[0], { signal: ctx.signal })}\n`);
  } catch (err) {
    await file.close();
    await rm(path, { force: true });
    throw err;
  }
  await file.close();
  print(ctx, `identity of ${args[0]} written to ${path}`, { path });
}
