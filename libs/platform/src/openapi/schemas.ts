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
  const obj = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, nullableToTypeArrays(v)])) as Json;
  if (isShapelessObject(obj)) {
    // Any value, null included: neither the type nor nullable says more.
    const { type: _type, nullable: _nullable, ...any } = obj;
    return any as T;
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

function nullableOf(schema: Json): Json {
  let obj = schema;
  const { description, allOf, ...rest } = schema;
  const described = description ? { description } : {};
  if (Array.isArray(allOf) && allOf.length === 1)
    return { ...described, ...without(rest, 'type'), anyOf: [allOf[0], { type: 'null' }] };
  // JSON Schema checks enum apart from type: a nullable enum lists null among its values.
  if (Array.isArray(rest['enum']) && !rest['enum'].includes(null)) obj = { ...obj, enum: [...rest['enum'], null] };
  if (typeof rest['type'] === 'string') return { ...obj, type: [rest['type'], 'null'] };
  if (Array.isArray(rest['type'])) return { ...obj, type: [...new Set([...(rest['type'] as string[]), 'null'])] };
  return { ...described, anyOf: [rest, { type: 'null' }] };
}

function without(obj: Json, key: string): Json {
  const { [key]: _, ...rest } = obj;
  return rest;
}
