import { toArray } from '@vault/sdk';
import { parse } from '../support/args';
import { clientFor, print, type Context } from '../support/context';
import { UsageError } from '../support/exit-codes';

const SUBCOMMANDS = ['list', 'create', 'get', 'delete'];

/** `vault records list|create|get|delete`. */
export async function records(ctx: Context, [sub, ...argv]: string[]): Promise<void> {
  if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`vault records ${SUBCOMMANDS.join('|')}`);
  const client = clientFor(ctx);
  if (sub === 'list') {
    const { values, args } = parse(argv, { name: { type: 'string' }, type: { type: 'string' } }, ['vaultId']);
    const filters = { ...(values.name ? { name: values.name } : {}), ...(values.type ? { recordTypeName: values.type } : {}) };
    const list = await toArray(client.recordsApi.search(args[0], { filters, signal: ctx.signal }));
    return print(ctx, list.length ? list.map((r) => `${r.id}  ${r.name}  ${r.recordType?.name ?? ''}`) : '(no records)', list);
  }
  if (sub === 'create') {
    const options = { type: { type: 'string' }, subtype: { type: 'string' }, description: { type: 'string' } } as const;
    const { values, args } = parse(argv, options, ['vaultId', 'name']);
    if (!values.type || !values.subtype)
      throw new UsageError('--type and --subtype are required (e.g. --type identityDocs --subtype passport)');
    const body = {
      name: args[1],
      description: values.description ?? '',
      recordTypeName: values.type,
      recordSubtypeName: values.subtype,
    };
    const id = await client.recordsApi.create(args[0], body, { signal: ctx.signal });
    return print(ctx, id, { id });
  }
  if (sub === 'get') {
    const { args } = parse(argv, {}, ['vaultId', 'recordId']);
    const { data, etag } = await client.recordsApi.get(args[0], args[1], { signal: ctx.signal });
    return print(ctx, [`${data.id}  ${data.name}`, `etag: ${etag}`], { ...data, etag });
  }
  if (sub === 'delete') {
    const { values, args } = parse(argv, { 'if-match': { type: 'string' } }, ['vaultId', 'recordId']);
    await client.recordsApi.delete(args[0], args[1], { ifMatch: values['if-match'], signal: ctx.signal });
    return print(ctx, `deleted ${args[1]}`, { deleted: args[1] });
  }
  throw new UsageError('vault records list|create|get|delete');
}
