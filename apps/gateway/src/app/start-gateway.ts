import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { appLogger, hardenExpress, instrumentApp } from '@vault/platform/bootstrap';
import { PlatformExpressAdapter } from '@vault/platform/http';
import { loadEnv } from '@vault/platform/config';
import type { Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { GatewayEnv } from '../config/gateway.env';
import { routeRequests } from '../features/edge/edge-listener';
import { answerUnparsedRequests } from '../capabilities/answers/unparsed-requests';
import { COMMON_ERRORS } from '@vault/contracts';
import { PlainHttpListener } from '../features/plain-http/plain-http.listener';
import { ProxyService } from '../capabilities/proxy/proxy.service';
import { MODULE_HOSTS } from '../capabilities/routing/host-router';
import { loadTlsMaterial, TlsMaterial } from '../capabilities/tls/tls-material';
import { serveApiDocs } from '../capabilities/api-docs/api-docs';
import { AppModule } from './app.module';

export interface RunningGateway {
  app: NestExpressApplication;
  env: GatewayEnv;
  tls: TlsMaterial;
  httpsPort: number;
  httpPort: number;
  /** Port of the /metrics server, when METRICS_PORT is set. */
  metricsPort?: number;
}

export interface StartOptions {
  /** Close both servers on SIGTERM/SIGINT (main.ts); tests close the app themselves. */
  shutdownHooks?: boolean;
}

/**
 * Boots the gateway: validated config, the certificate (configured files or
 * a self-signed one kept in CERT_DIR), the HTTPS server with the proxy in
 * front of Nest, and the plain-HTTP server that only refuses. Both servers
 * close with the application.
 */
export async function startGateway(options: StartOptions = {}): Promise<RunningGateway> {
  const env = loadEnv(GatewayEnv);
  const logger = appLogger(env);
  Logger.overrideLogger(logger);
  const tls = await loadTlsMaterial({
    certFile: env.TLS_CERT_FILE,
    keyFile: env.TLS_KEY_FILE,
    certDir: env.CERT_DIR,
    domain: env.GATEWAY_DOMAIN,
    hosts: MODULE_HOSTS.map((m) => `${m}.${env.GATEWAY_DOMAIN}`),
  });
  const app = await NestFactory.create<NestExpressApplication>(AppModule, new PlatformExpressAdapter(), {
    httpsOptions: { key: tls.key, cert: tls.cert },
    bodyParser: false,
    logger,
    forceCloseConnections: false,
  });
  try {
    hardenExpress(app);
    serveApiDocs(app);
    // After the drain, exit 0 (a clean stop, as the services do) rather than re-raising the
    // signal, which would end the process with status 143.
    if (options.shutdownHooks !== false) app.enableShutdownHooks([], { useProcessExit: true });
    await app.init();
    const server = app.getHttpServer() as Server;
    // Uploads of several gigabytes take longer than Node's default 5 minutes.
    server.requestTimeout = 0;
    server.headersTimeout = 30_000;
    const proxy = app.get(ProxyService);
    routeRequests(server, (req, res) => proxy.handle(req, res));
    // CONNECT names a host:port, not a path: the same refusal as any other target that is not a path.
    answerUnparsedRequests(server, { entry: COMMON_ERRORS.validationFailed, detail: 'The request target must be a path.' });
    await app.listen(env.HTTPS_PORT, env.HOST);
    const httpPort = await app.get(PlainHttpListener).listen(env.HTTP_PORT, env.HOST);
    const httpsPort = (server.address() as AddressInfo).port;
    // /metrics only on METRICS_PORT: every path of the public listeners is proxied or refused.
    const metricsPort = await instrumentApp(app, {
      name: 'gateway',
      metricsPort: env.METRICS_PORT,
      host: env.HOST,
      nats: false,
      database: false,
    });
    return { app, env, tls, httpsPort, httpPort, metricsPort };
  } catch (err) {
    await app.close();
    throw err;
  }
}
