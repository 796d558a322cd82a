import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ProblemException } from './problem.exception';

/** True when a string can be stored as PostgreSQL text (which refuses the NUL character). */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000');
}

/** Path of the first string in `value` (nested objects and arrays included) that holds a NUL character. */
export function findUnstorableText(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path || 'value';
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  if (Buffer.isBuffer(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (!isStorableText(key)) return path ? `${path}.${key.split('\u0000').join('\\0')}` : 'key';
    const found = findUnstorableText(inner, path ? `${path}.${key}` : key, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Global pipe ahead of validation: path parameters, query strings and bodies
 * carrying a NUL character are refused with a 400 naming the field, instead of
 * failing later in the database.
 */
@Injectable()
export class StorableTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'custom') return value;
    const field = findUnstorableText(value, metadata.type === 'param' && typeof value === 'string' ? (metadata.data ?? '') : '');
    if (field !== undefined) {
      throw ProblemException.badRequest('The request contains a NUL character, which is not allowed.', [
        { field, message: `${field} must not contain NUL characters` },
      ]);
    }
    return value;
  }
}
