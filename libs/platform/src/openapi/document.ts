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
