'use strict';
// Container health check: exits 0 when the app answers 200 on its readiness endpoint.
// HEALTHCHECK_URL overrides the address; by default the gateway is checked on its
// HTTPS port (its certificate may be self-signed, so it is not verified on loopback)
// and the services on PORT.
const http = require('node:http');
const https = require('node:https');

const DEFAULT_PORTS = { 'developer-service': 3001, 'user-service': 3002, 'records-service': 3003 };

function healthUrl(env) {
  if (env.HEALTHCHECK_URL) return env.HEALTHCHECK_URL;
  if (env.APP_NAME === 'gateway') return `https://127.0.0.1:${env.HTTPS_PORT || 8443}/health/ready`;
  return `http://127.0.0.1:${env.PORT || DEFAULT_PORTS[env.APP_NAME] || 3000}/health/ready`;
}

const url = new URL(healthUrl(process.env));
const client = url.protocol === 'https:' ? https : http;
const req = client.get(url, { timeout: 2500, rejectUnauthorized: false }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
