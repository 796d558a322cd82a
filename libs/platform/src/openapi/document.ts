import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ACCESS_RULE } from '../auth/access.decorators';
import { normalizeDocument, OperationFacts, WebhooksObject } from './normalize';
import { BEARER_SCHEME } from './problem-schema';

/** The version prefix of every API path; the servers of the documents end with it. */
export const API_PREFIX = 'api/v1';

/** Host and port the public documents name when the deployment's own are unknown. */
export const DEFAULT_PUBLIC_PORT = 8443;

export interface ModuleDocumentOptions {
  title: string;
  description: string;
  /** Host the module is reached at through the gateway (`records-api.localhost:8443`). */
  publicHost?: string;
  /** Outbound webhooks the module sends (OpenAPI 3.1 `webhooks`). */
  webhooks?: WebhooksObject;
}

/**
 * The OpenAPI 3.1 document of one module, as served at /api/v1/openapi.json and written to
 * libs/contracts/openapi by `npm run openapi:write`. The app may be a preview one
 * (`NestFactory.create(AppModule, { preview: true })`): only route metadata is read.
 */
export function buildModuleDocument(app: INestApplication, opts: ModuleDocumentOptions): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(opts.title)
    .setDescription(opts.description)
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME);
  if (opts.publicHost) {
    const [label, ...domain] = opts.publicHost.split('.');
    builder.addServer(`https://${label}.{domain}/${API_PREFIX}`, `The ${label} module through the gateway.`, {
      domain: { default: domain.join('.'), description: 'The gateway domain (GATEWAY_DOMAIN) and its HTTPS port.' },
    });
  }
  const raw = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return normalizeDocument(raw, { prefix: `/${API_PREFIX}`, facts: operationFacts(app), webhooks: opts.webhooks });
}

/** The access rule of every route, by operation id (what the OpenAPI security is derived from). */
function operationFacts(app: INestApplication): Map<string, OperationFacts> {
  const facts = new Map<string, OperationFacts>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!type?.prototype) continue;
      for (const method of Object.getOwnPropertyNames(type.prototype)) {
        if (method === 'constructor') continue;
        const handler = (type.prototype as Record<string, unknown>)[method];
        if (typeof handler !== 'function') continue;
        const rule = (Reflect.getMetadata(ACCESS_RULE, handler) ?? Reflect.getMetadata(ACCESS_RULE, type)) as string | undefined;
        facts.set(`${type.name.replace(/Controller$/, '')}_${method}`, { accessRule: rule });
      }
    }
  }
  return facts;
}

/**
 * The document with each server's `{domain}` defaulting to the one the caller reached, from
 * the Host header (`records-api.example.com:8443` gives `example.com:8443`): Swagger UI's
 * "Try it out" and a client generated from a served document then call that gateway.
 */
export function withServerDomain<T extends OpenAPIObject>(doc: T, host: string | undefined): T {
  // Only a module host (`<module>-api.<domain>`): a module reached directly keeps the defaults.
  const reached = host ? /^[a-z]+-api\.(.+)$/i.exec(host.trim()) : null;
  if (!reached) return doc;
  const value = reached[1].replace(/:443$/, '');
  const patch = (servers: OpenAPIObject['servers']) =>
    servers?.map((s) =>
      s.variables?.['domain'] ? { ...s, variables: { ...s.variables, domain: { ...s.variables['domain'], default: value } } } : s,
    );
  const paths = Object.fromEntries(
    Object.entries(doc.paths).map(([path, item]) => [path, item.servers ? { ...item, servers: patch(item.servers) } : item]),
  );
  return { ...doc, servers: patch(doc.servers), paths };
}
