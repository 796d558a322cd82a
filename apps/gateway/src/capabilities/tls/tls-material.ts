import { Logger } from '@nestjs/common';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  key: string;
  cert: string;
  /** `files`: TLS_CERT_FILE/TLS_KEY_FILE; `generated` now; `reused` from CERT_DIR. */
  source: 'files' | 'generated' | 'reused';
  certFile?: string;
}

export interface TlsSettings {
  certFile?: string;
  keyFile?: string;
  certDir: string;
  /** Host names the certificate must cover (the module hosts of the domain). */
  hosts: string[];
  domain: string;
}

const CERT_FILE_NAME = 'gateway.crt';
const KEY_FILE_NAME = 'gateway.key';
const RENEW_BEFORE_MS = 7 * 24 * 3600 * 1000;
const VALIDITY_DAYS = 365;

const logger = new Logger('Tls');

/**
 * The gateway's certificate: the configured files when given, otherwise a
 * self-signed certificate kept in the certificate folder, made at first start
 * and reused while it is valid for another week and covers the module hosts.
 */
export async function loadTlsMaterial(s: TlsSettings): Promise<TlsMaterial> {
  if (s.certFile && s.keyFile) {
    const [cert, key] = await Promise.all([readFile(s.certFile, 'utf8'), readFile(s.keyFile, 'utf8')]);
    return { cert, key, source: 'files', certFile: s.certFile };
  }
  const dir = resolve(s.certDir);
  const certFile = join(dir, CERT_FILE_NAME);
  const keyFile = join(dir, KEY_FILE_NAME);
  const existing = await readPair(certFile, keyFile);
  if (existing && isUsable(existing, s.hosts)) {
    return { ...existing, source: 'reused', certFile };
  }
  const made = await generateSelfSigned(s);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeAtomically(keyFile, made.key, 0o600);
  await writeAtomically(certFile, made.cert, 0o644);
  logger.log(`self-signed certificate for ${s.hosts.join(', ')} written to ${certFile}`);
  return { ...made, source: 'generated', certFile };
}

/** Subject alternative names of the self-signed certificate. */
export function subjectAltNames(domain: string, hosts: string[]): string[] {
  return [...new Set(['localhost', '*.localhost', ...hosts, domain, `*.${domain}`])];
}

async function generateSelfSigned(s: TlsSettings): Promise<{ key: string; cert: string }> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + VALIDITY_DAYS * 24 * 3600 * 1000);
  const pems = await generate([{ name: 'commonName', value: s.hosts[0] ?? s.domain }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...subjectAltNames(s.domain, s.hosts).map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
          { type: 7 as const, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

async function readPair(certFile: string, keyFile: string) {
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    return { cert, key };
  } catch {
    return undefined;
  }
}

/** Valid for another week, covers every module host, and the key belongs to it. */
function isUsable(pair: { cert: string; key: string }, hosts: string[]): boolean {
  try {
    const x509 = new X509Certificate(pair.cert);
    const fresh = new Date(x509.validTo).getTime() - Date.now() > RENEW_BEFORE_MS;
    return fresh && hosts.every((h) => x509.checkHost(h) !== undefined) && x509.checkPrivateKey(createPrivateKey(pair.key));
  } catch {
    return false;
  }
}

async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, content, { mode });
  await rename(tmp, file);
}
