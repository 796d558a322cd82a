import { intOption, parse } from '../support/args';
import { clientFor, print, type Context } from '../support/context';

/** `vault log <vaultId>`: the activity log, newest first. */
export async function log(ctx: Context, argv: string[]): Promise<void> {
  const options = {
    limit: { type: 'string' },
    entity: { type: 'string' },
    'event-type': { type: 'string' },
    locale: { type: 'string' },
  } as const;
  const { values, args } = parse(argv, options, ['vaultId']);
  const limit = intOption(values.limit, 'limit', 50);
  const filters = {
    ...(values.entity ? { entity: values.entity } : {}),
    ...(values['event-type'] ? { eventType: values['event-type'] } : {}),
    ...(values.locale ? { locale: values.locale } : {}),
  } as never;
  const entries = [];
  for await (const entry of clientFor(ctx).activity.log(args[0], {
    filters,
    pageSize: Math.min(limit, 100),
    signal: ctx.signal,
  })) {
    entries.push(entry);
    if (entries.length >= limit) break;
  }
  const strip = (html: string) => html.replace(/<[^>]+>/g, '');
  print(ctx, entries.length ? entries.map((e) => `${e.rawTime}  ${strip(e.message)}`) : '(empty log)', entries);
}

/**
 * `vault feed <vaultId>`: the change feed's retained events; with `--follow`, then the live
 * ones for ever (one line, or one JSON object per line with `--json`), resumed after drops.
 */
export async function feed(ctx: Context, argv: string[]): Promise<void> {
  const { values, args } = parse(argv, { follow: { type: 'boolean' }, cursor: { type: 'string' } }, ['vaultId']);
  const client = clientFor(ctx);
  const line = (e: { type: string; time: string; id: string }, cursor?: string) =>
    ctx.json
      ? JSON.stringify({ ...(cursor ? { cursor } : {}), event: e })
      : `${e.time}  ${e.type}  ${e.id}${cursor ? `  cursor=${cursor}` : ''}`;
  if (values.follow) {
    for await (const m of client.activity.follow(args[0], { lastEventId: values.cursor, signal: ctx.signal })) {
      ctx.stdout.write(line(m.event, m.cursor) + '\n');
    }
    return;
  }
  let cursor = values.cursor;
  for (;;) {
    const page = await client.activity.feedPage(args[0], { cursor, signal: ctx.signal });
    for (const e of page.data) ctx.stdout.write(line(e) + '\n');
    cursor = page.nextCursor;
    if (!page.hasMore) break;
  }
  // Where to go on from (--cursor): the position after the last event shown.
  if (ctx.json) ctx.stdout.write(JSON.stringify({ nextCursor: cursor }) + '\n');
  else ctx.stderr.write(`next cursor: ${cursor}\n`);
}
