import type { OpenAPIObject } from '@nestjs/swagger';
import { mergeDocuments } from './merge';
import { normalizeDocument } from './normalize';
import { nullableToTypeArrays } from './schemas';
import { withServerDomain } from './document';

/** The operation, failing the test when it is missing. */
function op(doc: OpenAPIObject, path: string, method: 'get' | 'post') {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} missing`);
  return found;
}

const raw = (paths: OpenAPIObject['paths'], schemas = {}): OpenAPIObject => ({
  openapi: '3.0.0',
  info: { title: 'T', version: '1.0' },
  servers: [{ url: 'https://records-api.{domain}/api/v1', variables: { domain: { default: 'localhost:8443' } } }],
  paths,
  components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
});

const facts = new Map([
  ['V_get', { accessRule: 'vault:viewer' }],
  ['V_create', { accessRule: 'authenticated' }],
  ['K_keys', { accessRule: 'public' }],
]);

describe('normalizeDocument', () => {
  const doc = normalizeDocument(
    raw(
      {
        '/api/v1/vault/vault-id/{vaultId}': {
          get: { operationId: 'V_get', parameters: [], responses: { '200': { description: 'ok' } } },
        },
        '/api/v1/vault': {
          post: {
            operationId: 'V_create',
            parameters: [{ name: 'Idempotency-Key', in: 'header', required: false }],
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            responses: { '201': { description: 'created' }, '409': { description: 'Taken.' } },
          },
        },
        '/api/v1/keys': { get: { operationId: 'K_keys', parameters: [], responses: { '200': { description: 'ok' } } } },
      },
      { Unused: { type: 'object' } },
    ),
    { prefix: '/api/v1', facts },
  );

  it('moves the prefix into the server and declares every path parameter', () => {
    expect(Object.keys(doc.paths)).toEqual(['/vault/vault-id/{vaultId}', '/vault', '/keys']);
    expect(doc.paths['/vault/vault-id/{vaultId}'].get?.parameters).toEqual([
      { name: 'vaultId', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('derives security and the statuses from the access rule and the route shape', () => {
    const get = op(doc, '/vault/vault-id/{vaultId}', 'get');
    expect(get.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(get.responses)).toEqual(['200', '400', '401', '403', '404', '429', '500', '502', '503', '504']);
    const post = op(doc, '/vault', 'post');
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['409', '413', '415', '422']));
    expect(Object.keys(post.responses)).not.toContain('404');
    const keys = op(doc, '/keys', 'get');
    expect(keys.security).toEqual([]);
    expect(Object.keys(keys.responses)).not.toContain('401');
  });

  it('gives every error the problem body, every answer the common headers, every 201 Location', () => {
    const conflict = op(doc, '/vault', 'post').responses['409'] as { content: object; description: string };
    expect(conflict.description).toBe('Taken.');
    expect(conflict.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    const created = op(doc, '/vault', 'post').responses['201'] as { headers: Record<string, { required?: boolean }> };
    expect(created.headers['Location'].required).toBe(true);
    expect(Object.keys(created.headers)).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit', 'RateLimit-Policy']));
    expect(doc.components?.responses?.['Problem429']).toBeDefined();
    expect(doc.components?.responses?.['Problem416']).toBeUndefined();
    expect(doc.components?.schemas?.['Unused']).toBeUndefined();
  });
});

describe('nullableToTypeArrays', () => {
  it('writes nullable as OpenAPI 3.1 does, an enum with null among its values', () => {
    expect(nullableToTypeArrays({ type: 'string', nullable: true, enum: ['a'] })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(nullableToTypeArrays({ nullable: true, allOf: [{ $ref: '#/x' }], description: 'd' })).toEqual({
      description: 'd',
      anyOf: [{ $ref: '#/x' }, { type: 'null' }],
    });
  });

  it('lets a shapeless object (a reflected union or unknown) be any value', () => {
    expect(nullableToTypeArrays({ type: 'object', nullable: true, description: 'echo' })).toEqual({ description: 'echo' });
    expect(nullableToTypeArrays({ type: 'object', additionalProperties: true })).toEqual({
      type: 'object',
      additionalProperties: true,
    });
  });
});

describe('mergeDocuments and withServerDomain', () => {
  const a = normalizeDocument(raw({ '/api/v1/a': { get: { operationId: 'A', parameters: [], responses: {} } } }), {
    prefix: '/api/v1',
    facts: new Map(),
  });
  const b = { ...a, servers: [{ url: 'https://user-api.{domain}/api/v1' }], paths: { '/b': a.paths['/a'] } };

  it('keeps each path on its module server and refuses a component two modules define differently', () => {
    const merged = mergeDocuments([a, b], { title: 'All', description: 'd' });
    expect(merged.paths['/b'].servers).toEqual([{ url: 'https://user-api.{domain}/api/v1' }]);
    const clash = { ...b, components: { schemas: { Problem: { type: 'string' } } } } as OpenAPIObject;
    expect(() => mergeDocuments([a, clash], { title: 'All', description: 'd' })).toThrow(/Problem/);
  });

  it('defaults the servers to the gateway the caller reached, only for a module host', () => {
    const served = withServerDomain(a, 'records-api.example.com:9443');
    expect(served.servers?.[0].variables?.['domain'].default).toBe('example.com:9443');
    expect(withServerDomain(a, '127.0.0.1:3003')).toBe(a);
  });
});
