import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, registerDecorator, ValidationOptions } from 'class-validator';

const DMY = /^(\d{2})\/(\d{2})\/(\d{4})$/;

/**
 * Parses a `DD/MM/YYYY` date into `YYYY-MM-DD`, or null when the text is not
 * in that format or names no real calendar day (31/02/2000, 00/01/2000...).
 */
export function parseDayMonthYear(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = DMY.exec(value);
  if (!m) return null;
  const [, dd, mm, yyyy] = m;
  const day = Number(dd);
  const month = Number(mm);
  const year = Number(yyyy);
  if (year < 1) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    return null;
  }
  return `${yyyy}-${mm}-${dd}`;
}

/** A real calendar date written `DD/MM/YYYY`. */
export function IsDayMonthYear(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isDayMonthYear',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be a real date written DD/MM/YYYY`, ...options },
      validator: { validate: (value: unknown) => parseDayMonthYear(value) !== null },
    });
}

/** Entries of an array differ in `key` (compared case-insensitively for strings). */
export function UniqueBy(key: string, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'uniqueBy',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must not repeat a ${key}`, ...options },
      validator: {
        validate(value: unknown) {
          if (!Array.isArray(value)) return true;
          const seen = new Set<unknown>();
          for (const entry of value) {
            const raw = (entry as Record<string, unknown> | null)?.[key];
            if (raw === undefined || raw === null) continue;
            const k = typeof raw === 'string' ? raw.toLowerCase() : raw;
            if (seen.has(k)) return false;
            seen.add(k);
          }
          return true;
        },
      },
    });
}

/** At most one entry of an array has `primary: true`. */
export function AtMostOnePrimary(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'atMostOnePrimary',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} may have at most one primary entry`, ...options },
      validator: {
        validate: (value: unknown) =>
          !Array.isArray(value) ||
          value.filter((e) => (e as { primary?: unknown } | null)?.primary === true).length <= 1,
      },
    });
}

/**
 * A read-only field clients echo back from a response (`id`, `createdAt`...):
 * accepted with any value and ignored, never assigned.
 */
export const ReadOnlyEcho = () =>
  applyDecorators(
    Allow(),
    ApiPropertyOptional({ readOnly: true, description: 'Read-only; accepted and ignored on input.' }),
  );
