import { basename, resolve } from 'node:path';
import { toArray } from '@vault/sdk';
import { intOption, parse } from '../support/args';
import { clientFor, print, progressBar, type Context } from '../support/context';
import { UsageError } from '../support/exit-codes';
import { formatBytes } from '../support/progress';
import { uploadsFile } from '../support/session';

const FILE_TYPES = ['document', 'image', 'cloud'] as const;

/** `vault upload <vaultId> <recordId> <file>`: resumable; run it again after an interruption to continue. */
export async function upload(ctx: Context, argv: string[]): Promise<void> {
  const options = {
    name: { type: 'string' },
    'file-type': { type: 'string' },
    'content-type': { type: 'string' },
    caption: { type: 'string' },
    title: { type: 'string' },
    'chunk-size': { type: 'string' },
  } as const;
  const { values, args } = parse(argv, options, ['vaultId', 'recordId', 'file']);
  const fileType = (values['file-type'] ?? 'document') as (typeof FILE_TYPES)[number];
  if (!FILE_TYPES.includes(fileType)) throw new UsageError(`--file-type must be one of ${FILE_TYPES.join(', ')}`);
  const path = resolve(args[2]);
  const bar = progressBar(ctx, `upload ${basename(path)}`);
  const result = await clientFor(ctx).files.upload({
    vaultId: args[0],
    recordId: args[1],
    file: path,
    fileName: values.name,
    fileType,
    contentType: values['content-type'],
    caption: values.caption,
    uploadTitle: values.title,
    chunkSize: intOption(values['chunk-size'], 'chunk-size', 5 * 1024 * 1024),
    resumeStore: uploadsFile(ctx.dir),
    signal: ctx.signal,
    onProgress: (sent, total) => bar?.update(sent, total),
  });
  bar?.finish();
  print(
    ctx,
    `uploaded ${formatBytes(result.size)} as ${result.recordFileUrl}${result.resumed ? ' (resumed)' : ''}\nsha256 ${result.sha256}`,
    result,
  );
}

/**
 * `vault download <vaultId> <recordId> <name> [--out path]`: resumes a partial download, checks the SHA-256.
 * With `--age` (vault owner): the file as a standard `.age` file, for `age -d -i` with `vault export-identity`.
 */
export async function download(ctx: Context, argv: string[]): Promise<void> {
  const { values, args } = parse(argv, { out: { type: 'string' }, age: { type: 'boolean' } }, ['vaultId', 'recordId', 'name']);
  if (values.age) return downloadAge(ctx, args, values.out);
  const to = resolve(values.out ?? basename(args[2]));
  const bar = progressBar(ctx, `download ${args[2]}`);
  const result = await clientFor(ctx).files.download(args[0], args[1], args[2], {
    to,
    signal: ctx.signal,
    onProgress: (received, total) => bar?.update(received, total),
  });
  bar?.finish();
  print(
    ctx,
    `downloaded ${formatBytes(result.size)} to ${result.path}${result.resumed ? ' (resumed)' : ''}\nsha256 ${result.sha256} (checked)`,
    result,
  );
}

async function downloadAge(ctx: Context, [vaultId, recordId, name]: string[], out: string | undefined): Promise<void> {
  const to = resolve(out ?? `${basename(name)}.age`);
  const bar = progressBar(ctx, `download ${name}.age`);
  const result = await clientFor(ctx).files.downloadAge(vaultId, recordId, name, {
    to,
    signal: ctx.signal,
    onProgress: (received, total) => bar?.update(received, total),
  });
  bar?.finish();
  print(
    ctx,
    `downloaded ${formatBytes(result.size)} to ${result.path} (age encrypted)${result.resumed ? ' (resumed)' : ''}`,
    result,
  );
}

/** `vault files <vaultId> <recordId>`: the record's files by submission. */
export async function files(ctx: Context, argv: string[]): Promise<void> {
  const { args } = parse(argv, {}, ['vaultId', 'recordId']);
  const groups = await toArray(clientFor(ctx).files.groups(args[0], args[1], { signal: ctx.signal }));
  const lines = groups.flatMap((g) => g.files.map((f) => `${f.fileName}  ${formatBytes(f.fileSize)}  ${g.correlationId}`));
  print(ctx, lines.length ? lines : '(no files)', groups);
}
