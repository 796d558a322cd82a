import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './exit-codes';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses a command's arguments; an unknown option or a missing argument is a usage error (exit 2). */
export function parse<O extends Options>(argv: string[], options: O, positionals: string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (parsed.positionals.length < positionals.length) {
    throw new UsageError(
      `missing ${positionals
        .slice(parsed.positionals.length)
        .map((p) => `<${p}>`)
        .join(' ')}`,
    );
  }
  if (parsed.positionals.length > positionals.length)
    throw new UsageError(`unexpected argument ${parsed.positionals[positionals.length]}`);
  return {
    values: parsed.values as { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string },
    args: parsed.positionals,
  };
}

/** A positive integer option. */
export function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}
