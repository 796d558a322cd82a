// First: starts OpenTelemetry (when configured) before http, express and pg are loaded.
import '@vault/platform/tracing';
import { Logger } from '@nestjs/common';
import { EnvValidationError } from '@vault/platform/config';
import { startGateway } from './app/start-gateway';

startGateway()
  .then(({ env, httpsPort, httpPort, tls }) => {
    const d = env.GATEWAY_DOMAIN;
    Logger.log(
      `gateway on https://{developer-api,user-api,records-api}.${d}:${httpsPort} ` +
        `(certificate: ${tls.source}${tls.certFile ? ` ${tls.certFile}` : ''}); ` +
        `plain HTTP on port ${httpPort} is refused`,
      'Bootstrap',
    );
  })
  .catch((err) => {
    console.error(err instanceof EnvValidationError ? err.message : err);
    process.exit(1);
  });
