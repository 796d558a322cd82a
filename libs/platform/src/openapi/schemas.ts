/**
 * OpenAPI 3.0's `nullable: true` (what @nestjs/swagger writes) as OpenAPI 3.1 says it:
 * `type: [T, 'null']`, or `anyOf: [schema, {type: 'null'}]` for a reference or composition.
 */
export function nullableToTypeArrays<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => nullableToTypeArrays(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const obj = Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, nullableToTypeArrays(v)]),
  ) as Record<string, unknown>;
  if (obj['nullable'] !== true) return obj as T;
  delete obj['nullable'];
  if (typeof obj['type'] === 'string') return { ...obj, type: [obj['type'], 'null'] } as T;
  if (Array.isArray(obj['type'])) return { ...obj, type: [...new Set([...(obj['type'] as string[]), 'null'])] } as T;
  const { description, ...schema } = obj;
  return { ...(description ? { description } : {}), anyOf: [schema, { type: 'null' }] } as T;
}
