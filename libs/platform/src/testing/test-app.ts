import { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppDescription, configureApp } from '../bootstrap/configure-app';
import { PlatformExpressAdapter } from '../http/express-adapter';
import { useRequestIds } from '../http/request-id.middleware';

/**
 * Boots an app module the way main.ts does (runService: the platform's Express adapter, no
 * Nest body parser, request ids
 * first, prefix, OpenAPI, pipes, filters),
 * with the given env variables applied first. Listens on an ephemeral port.
 */
export async function bootTestApp(
  module: Type<unknown>,
  env: Record<string, string>,
  desc: AppDescription = { title: 'test', description: 'test' },
): Promise<INestApplication> {
  Object.assign(process.env, { NODE_ENV: 'test', LOG_LEVEL: 'error', ...env });
  const ref = await Test.createTestingModule({ imports: [module] }).compile();
  const app = ref.createNestApplication(new PlatformExpressAdapter(), { logger: ['error'], bodyParser: false });
  useRequestIds(app);
  configureApp(app, desc);
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  return app;
}
