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

/** Registers a property rule with a message naming the property. */
function rule(name: string, message: (property: string) => string, validate: (value: unknown) => boolean) {
  return (options?: ValidationOptions): PropertyDecorator =>
    (target, propertyName) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName: propertyName as string,
        options: { message: message(String(propertyName)), ...options },
        validator: { validate },
      });
}

/** A real calendar date written `DD/MM/YYYY`. */
export const IsDayMonthYear = rule(
  'isDayMonthYear',
  (p) => `${p} must be a real date written DD/MM/YYYY`,
  (value) => parseDayMonthYear(value) !== null,
);

/** Entries of an array differ in `key` (compared case-insensitively for strings). */
export function UniqueBy(key: string, options?: ValidationOptions): PropertyDecorator {
  return rule(
    'uniqueBy',
    (p) => `${p} must not repeat a ${key}`,
    (value) => {
      if (!Array.isArray(value)) return true;
      const keys = value
        .map((entry) => (entry as Record<string, unknown> | null)?.[key])
        .filter((k) => k !== undefined && k !== null)
        .map((k) => (typeof k === 'string' ? k.toLowerCase() : k));
      return new Set(keys).size === keys.length;
    },
  )(options);
}

/** At most one entry of an array has `primary: true`. */
export const AtMostOnePrimary = rule(
  'atMostOnePrimary',
  (p) => `${p} may have at most one primary entry`,
  (value) => !Array.isArray(value) || value.filter((e) => (e as { primary?: unknown } | null)?.primary === true).length <= 1,
);

/**
 * A read-only field clients echo back from a response (`id`, `createdAt`...):
 * accepted with any value and ignored, never assigned.
 */
export const ReadOnlyEcho = () =>
  applyDecorators(Allow(), ApiPropertyOptional({ readOnly: true, description: 'Read-only; accepted and ignored on input.' }));
