import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { BaseEnv, EnvValidationError } from '../config/env';
import { AppDescription, configureApp } from './configure-app';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * Boots a service: validated config (fails fast naming the variable), shared
 * app configuration, shutdown hooks for SIGTERM/SIGINT, then listens on PORT.
 */
export async function runService(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  module: any,
  desc: AppDescription,
  configure?: (app: NestExpressApplication) => void | Promise<void>,
): Promise<INestApplication> {
  try {
    const app = await NestFactory.create<NestExpressApplication>(module, {
      bufferLogs: false,
      forceCloseConnections: false,
    });
    const env = app.get(BaseEnv);
    app.useLogger(LEVELS.slice(0, LEVELS.indexOf(env.LOG_LEVEL) + 1));
    configureApp(app, desc);
    if (configure) await configure(app);
    app.enableShutdownHooks();
    await app.listen(env.PORT, env.HOST);
    Logger.log(`${desc.title} listening on ${await app.getUrl()}`, 'Bootstrap');
    return app;
  } catch (err) {
    const cause = findEnvError(err);
    if (cause) {
      console.error(cause.message);
    } else {
      console.error(err);
    }
    process.exit(1);
  }
}

function findEnvError(err: unknown): EnvValidationError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof EnvValidationError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
