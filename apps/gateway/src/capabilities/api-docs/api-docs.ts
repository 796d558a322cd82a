import type { INestApplication } from '@nestjs/common';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import vaultApi from '@vault/contracts/openapi';
import { withServerDomain } from '@vault/platform/openapi';
import type { IncomingMessage } from 'node:http';

/**
 * Where the gateway serves the merged OpenAPI document of the whole API and Swagger UI over
 * it, on every module host. A module's own document stays at /api/v1/openapi.json (proxied).
 */
export const MERGED_DOCUMENT_PATH = '/api/v1/openapi/vault-api.json';
export const DOCS_PATH = '/api/v1/docs';

/** Whether the gateway answers the request itself with the API description (never proxied). */
export function isApiDocsPath(url: string | undefined): boolean {
  if (!url) return false;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path === MERGED_DOCUMENT_PATH || path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`);
}

/**
 * Serves libs/contracts/openapi/vault-api.json (npm run openapi:write) and Swagger UI over it,
 * each path's server defaulting to the gateway the caller reached (withServerDomain).
 */
export function serveApiDocs(app: INestApplication): void {
  const doc = vaultApi as unknown as OpenAPIObject;
  const byHost = new Map<string, OpenAPIObject>();
  SwaggerModule.setup(DOCS_PATH.slice(1), app, doc, {
    jsonDocumentUrl: MERGED_DOCUMENT_PATH.slice(1),
    yamlDocumentUrl: MERGED_DOCUMENT_PATH.slice(1).replace(/\.json$/, '.yaml'),
    useGlobalPrefix: false,
    customSiteTitle: 'Vault API',
    swaggerOptions: { displayRequestDuration: true },
    patchDocumentOnRequest: <TRequest>(req: TRequest) => {
      const host = (req as IncomingMessage).headers.host ?? '';
      let served = byHost.get(host);
      if (!served) {
        served = withServerDomain(doc, host);
        // Three module hosts and a port or two: bounded against made-up Host headers.
        if (byHost.size < 32) byHost.set(host, served);
      }
      return served;
    },
  });
}
