import { INestApplication, RequestMethod } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import type { Express } from 'express';
import { BaseEnv, LOOPBACK_PROXIES, parseAddressList, ServiceEnv } from '../config/env';
import { useHttpMetrics } from '../observability/http-metrics';
import type { IncomingMessage } from 'node:http';
import { API_PREFIX, buildModuleDocument, ModuleDocumentOptions, withServerDomain } from '../openapi';

/** Title, description, public host and webhooks of the module's OpenAPI document. */
export type AppDescription = ModuleDocumentOptions;

/**
 * Applies what main.ts and the integration tests share: the version prefix
 * (health stays outside it), the OpenAPI description at /api/v1/openapi.json
 * (and /api/v1/docs), express hardening, and request metrics by route template.
 */
export function configureApp(app: INestApplication, desc: AppDescription): void {
  useHttpMetrics(app);
  useApiPrefix(app);
  hardenExpress(app).set('trust proxy', trustedProxies(app));

  const document = buildModuleDocument(app, desc);
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    useGlobalPrefix: false,
    // The servers name the gateway the caller came through (its Host header, forwarded).
    patchDocumentOnRequest: <TRequest>(req: TRequest) => withServerDomain(document, (req as IncomingMessage).headers.host),
  });
}

/** The version prefix on every route but health (also applied by scripts/openapi-write.mjs). */
export function useApiPrefix(app: INestApplication): void {
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
    ],
  });
}

/**
 * Addresses whose X-Forwarded-For Express believes when it computes `req.ip`:
 * the service's TRUSTED_PROXIES (the gateway), loopback for an app without one.
 * A peer outside the list is the client itself, so it cannot pick its own
 * throttle key with a forged header.
 */
function trustedProxies(app: INestApplication): string[] {
  let env: BaseEnv | undefined;
  try {
    env = app.get(BaseEnv, { strict: false });
  } catch {
    env = undefined; // an app without PlatformModule: loopback only
  }
  return parseAddressList(env instanceof ServiceEnv ? env.TRUSTED_PROXIES : LOOPBACK_PROXIES);
}

/** No framework banner (x-powered-by) and no ETags computed for API answers. */
export function hardenExpress(app: INestApplication): Express {
  const express = app.getHttpAdapter().getInstance() as Express;
  express.disable('x-powered-by');
  express.set('etag', false);
  return express;
}
