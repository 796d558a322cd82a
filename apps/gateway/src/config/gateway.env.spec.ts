import { EnvValidationError, loadEnv } from '@vault/platform/config';
import { GatewayEnv } from './gateway.env';

describe('GatewayEnv', () => {
  it('has working defaults', () => {
    const env = loadEnv(GatewayEnv, {});
    expect(env).toMatchObject({
      GATEWAY_DOMAIN: 'localhost',
      HTTPS_PORT: 8443,
      HTTP_PORT: 8080,
      CERT_DIR: '.data/certs',
      DEVELOPER_SERVICE_URL: 'http://127.0.0.1:3001',
      USER_SERVICE_URL: 'http://127.0.0.1:3002',
      RECORDS_SERVICE_URL: 'http://127.0.0.1:3003',
      MAX_JSON_BODY_BYTES: 1024 * 1024,
      MAX_UPLOAD_BYTES: 5 * 1024 ** 3,
      RATE_LIMIT_CALLER_PER_MINUTE: 600,
      RATE_LIMIT_TENANT_PER_MINUTE: 6000,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: 300,
      RATE_LIMIT_ADDRESS_PER_MINUTE: 12000,
      RATE_LIMIT_STORE: 'nats',
      NATS_URL: 'nats://127.0.0.1:4222',
      RATE_LIMIT_BUCKET: 'gateway_rate_limits',
      RATE_LIMIT_SYNC_MS: 200,
    });
    expect(env.TLS_CERT_FILE).toBeUndefined();
  });

  it('reads numbers and names from strings', () => {
    const env = loadEnv(GatewayEnv, {
      HTTPS_PORT: '9443',
      GATEWAY_DOMAIN: 'vault.example.com',
      RATE_LIMIT_CALLER_PER_MINUTE: '0',
      RATE_LIMIT_STORE: 'memory',
    });
    expect(env).toMatchObject({
      HTTPS_PORT: 9443,
      GATEWAY_DOMAIN: 'vault.example.com',
      RATE_LIMIT_CALLER_PER_MINUTE: 0,
      RATE_LIMIT_STORE: 'memory',
    });
  });

  it.each([
    [{ TLS_CERT_FILE: '/x.crt' }, 'TLS_KEY_FILE'],
    [{ TLS_KEY_FILE: '/x.key' }, 'TLS_CERT_FILE'],
    [{ GATEWAY_DOMAIN: 'Bad_Domain' }, 'GATEWAY_DOMAIN'],
    [{ USER_SERVICE_URL: 'ftp://user' }, 'USER_SERVICE_URL'],
    [{ HTTP_PORT: '70000' }, 'HTTP_PORT'],
    [{ MAX_JSON_BODY_BYTES: 'lots' }, 'MAX_JSON_BODY_BYTES'],
    [{ UPSTREAM_TIMEOUT_MS: '0' }, 'UPSTREAM_TIMEOUT_MS'],
    [{ TRUSTED_PROXY_CIDRS: '10.0.0.0/8,ingress' }, 'TRUSTED_PROXY_CIDRS'],
    [{ RATE_LIMIT_TENANT_PER_MINUTE: '-1' }, 'RATE_LIMIT_TENANT_PER_MINUTE'],
    [{ RATE_LIMIT_STORE: 'redis' }, 'RATE_LIMIT_STORE'],
    [{ RATE_LIMIT_BUCKET: 'a.b' }, 'RATE_LIMIT_BUCKET'],
    [{ RATE_LIMIT_SYNC_MS: '0' }, 'RATE_LIMIT_SYNC_MS'],
    [{ RATE_LIMIT_PER_MINUTE: '1200' }, 'RATE_LIMIT_CALLER_PER_MINUTE'],
  ])('refuses %j naming %s', (source, name) => {
    expect(() => loadEnv(GatewayEnv, source)).toThrow(EnvValidationError);
    expect(() => loadEnv(GatewayEnv, source)).toThrow(name);
  });

  it('accepts a list of trusted proxies', () => {
    expect(loadEnv(GatewayEnv, { TRUSTED_PROXY_CIDRS: '10.0.0.0/8, fd00::/8,127.0.0.1' }).TRUSTED_PROXY_CIDRS).toBe(
      '10.0.0.0/8, fd00::/8,127.0.0.1',
    );
  });

  it('refuses credentials in an upstream URL (upstreams take none) and shows URLs without them', () => {
    const attempt = () => loadEnv(GatewayEnv, { USER_SERVICE_URL: 'http://svc:hunter2@127.0.0.1:3002' });
    expect(attempt).toThrow(/USER_SERVICE_URL: .*\(got "http:\/\/svc:\*\*\*@127\.0\.0\.1:3002"\)/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('accepts the certificate pair together', () => {
    expect(loadEnv(GatewayEnv, { TLS_CERT_FILE: '/a.crt', TLS_KEY_FILE: '/a.key' }).TLS_KEY_FILE).toBe('/a.key');
  });
});
