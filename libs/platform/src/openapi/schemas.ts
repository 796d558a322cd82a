type Json = Record<string, unknown>;

/** Keywords that give an object schema its shape: without any, @nestjs/swagger could not name the TS type. */
const SHAPE_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties', '$ref', 'allOf', 'anyOf', 'oneOf', 'items'];

/**
 * Schemas as OpenAPI 3.1 says them, from what @nestjs/swagger writes (OpenAPI 3.0 style):
 * - `nullable: true` becomes `type: [T, 'null']`, or `anyOf: [schema, {type: 'null'}]` for a
 *   reference or composition;
 * - an object with no shape at all (reflection of `unknown`, `any` or a union the decorator
 *   did not name) accepts any value: a free-form object must say `additionalProperties`.
 */
export function nullableToTypeArrays<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => nullableToTypeArrays(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  let obj = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, nullableToTypeArrays(v)])) as Json;
  if (isShapelessObject(obj)) {
    const { type, ...rest } = obj;
    obj = rest;
    if (Array.isArray(type) && type.includes('null')) obj['nullable'] = true;
    if (obj['nullable'] === true) {
      delete obj['nullable'];
      return obj as T; // any value, null included
    }
    return obj as T;
  }
  if (obj['nullable'] !== true) return obj as T;
  delete obj['nullable'];
  return nullableOf(obj) as T;
}

function isShapelessObject(obj: Json): boolean {
  const type = obj['type'];
  const isObject =
    type === 'object' ||
    (Array.isArray(type) && type.length <= 2 && type.includes('object') && type.every((t) => t === 'object' || t === 'null'));
  return isObject && !SHAPE_KEYWORDS.some((k) => k in obj) && !('enum' in obj);
}

function nullableOf(obj: Json): Json {
  const { description, allOf, ...rest } = obj;
  const described = description ? { description } : {};
  if (Array.isArray(allOf) && allOf.length === 1)
    return { ...described, ...without(rest, 'type'), anyOf: [allOf[0], { type: 'null' }] };
  if (typeof rest['type'] === 'string') return { ...obj, type: [rest['type'], 'null'] };
  if (Array.isArray(rest['type'])) return { ...obj, type: [...new Set([...(rest['type'] as string[]), 'null'])] };
  return { ...described, anyOf: [rest, { type: 'null' }] };
}

function without(obj: Json, key: string): Json {
  const { [key]: _, ...rest } = obj;
  return rest;
}
