import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { bootGateway, tempDir } from './support/boot';
import { call } from './support/client';

describe('gateway certificate', () => {
  it('makes a self-signed certificate at first start and reuses it on the next', async () => {
    const dir = join(tempDir('gateway-cert-'), 'nested', 'certs');
    const first = await bootGateway({ CERT_DIR: dir, GATEWAY_DOMAIN: 'vault.test' });
    let firstCert: string;
    try {
      expect(first.tls.source).toBe('generated');
      firstCert = readFileSync(join(dir, 'gateway.crt'), 'utf8');
      expect(first.tls.cert).toBe(firstCert);
      expect(statSync(join(dir, 'gateway.key')).mode & 0o077).toBe(0);
      const x509 = new X509Certificate(firstCert);
      for (const host of [
        'developer-api.vault.test',
        'user-api.vault.test',
        'records-api.vault.test',
        'localhost',
        'vault.test',
      ]) {
        expect(x509.checkHost(host)).toBe(host);
      }
      expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
      expect(x509.checkIP('::1')).toBe('::1');
      // A client that trusts this certificate talks to the gateway with full verification.
      const res = await call(first.httpsPort, { host: 'user-api.vault.test', path: '/health/live', ca: firstCert });
      expect(res.status).toBe(200);
      expect(res.peerCertificate?.fingerprint256).toBe(x509.fingerprint256);
    } finally {
      await first.app.close();
    }
    // Both servers closed with the application.
    await expect(call(first.httpsPort, { host: 'user-api.vault.test', path: '/health/live' })).rejects.toThrow(/ECONNREFUSED/);
    await expect(call(first.httpPort, { host: 'user-api.vault.test' }, true)).rejects.toThrow(/ECONNREFUSED/);
    const second = await bootGateway({ CERT_DIR: dir, GATEWAY_DOMAIN: 'vault.test' });
    try {
      expect(second.tls.source).toBe('reused');
      expect(second.tls.cert).toBe(firstCert);
      const res = await call(second.httpsPort, { host: 'records-api.vault.test', path: '/health/live', ca: firstCert });
      expect(res.status).toBe(200);
    } finally {
      await second.app.close();
    }
  });

  it('makes a new certificate when the kept one does not cover the configured domain', async () => {
    const dir = tempDir('gateway-cert-');
    const a = await bootGateway({ CERT_DIR: dir, GATEWAY_DOMAIN: 'one.test' });
    await a.app.close();
    const b = await bootGateway({ CERT_DIR: dir, GATEWAY_DOMAIN: 'two.test' });
    try {
      expect(b.tls.source).toBe('generated');
      expect(new X509Certificate(b.tls.cert).checkHost('user-api.two.test')).toBe('user-api.two.test');
    } finally {
      await b.app.close();
    }
  });

  it('serves the certificate files named by TLS_CERT_FILE and TLS_KEY_FILE', async () => {
    const dir = tempDir('gateway-tls-files-');
    const pems = await generate([{ name: 'commonName', value: 'configured.test' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'user-api.localhost' }] }],
    });
    const certFile = join(dir, 'server.crt');
    const keyFile = join(dir, 'server.key');
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private);
    const certDir = join(dir, 'unused');
    const gw = await bootGateway({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, CERT_DIR: certDir });
    try {
      expect(gw.tls.source).toBe('files');
      const res = await call(gw.httpsPort, { host: 'user-api.localhost', path: '/health/live', ca: pems.cert });
      expect(res.status).toBe(200);
      expect(res.peerCertificate?.fingerprint256).toBe(new X509Certificate(pems.cert).fingerprint256);
      expect(existsSync(certDir)).toBe(false);
    } finally {
      await gw.app.close();
    }
  });
});
