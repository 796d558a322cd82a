import { readFileSync } from 'node:fs';
import { EnvValidationError } from '@vault/platform/config';

/**
 * Reads the JSON file a variable names (or takes the shipped default without one) and
 * checks it; any problem stops the boot with messages naming the variable.
 */
export function loadJsonConfigFile<T>(
  variable: string,
  path: string | undefined,
  shipped: unknown,
  parse: (raw: unknown) => { value?: T; problems: string[] },
): T {
  let raw = shipped;
  if (path) {
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new EnvValidationError([`${variable}: cannot read ${path}: ${(err as Error).message}`]);
    }
  }
  const { value, problems } = parse(raw);
  if (value === undefined) throw new EnvValidationError(problems.map((p) => `${variable}: ${p}`));
  return value;
}
