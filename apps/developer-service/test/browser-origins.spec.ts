import { INestApplication } from '@nestjs/common';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { ApplicationOriginsEntry, corsOriginsBucket, corsOriginsKey } from '@vault/contracts';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app/app.module';
import { OriginsPublisher } from '../src/capabilities/browser-origins/origins-publisher';
import { baseEnv, bootFailure, writeBootstrapFile } from './support';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

const file = (origins: Record<string, string[] | undefined>) => ({
  tenants: [
    {
      id: 'acme',
      name: 'Acme',
      applications: Object.entries(origins).map(([clientId, allowedOrigins]) => ({
        clientId,
        clientSecret: 'acme-secret-1',
        allowedOrigins,
      })),
    },
  ],
});

/**
 * Browser origins registered in the bootstrap file: validated, stored serialized, and
 * published into the namespaced KV bucket the gateway watches (added, changed, removed).
 */
describe('developer-service browser origins', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  const namespace = `origins_${randomBytes(4).toString('hex')}`;
  const apps: INestApplication[] = [];
  const boot = async (path: string) => {
    const app = await bootTestApp(AppModule, { ...baseEnv(db.url), VAULT_BOOTSTRAP_FILE: path, EVENTS_NAMESPACE: namespace });
    apps.push(app);
    return app;
  };
  const entries = async () => {
    const kv = await new Kvm(nc).open(corsOriginsBucket(namespace));
    const out: Record<string, string[]> = {};
    for await (const key of await kv.keys()) {
      const e = (await kv.get(key))?.json<ApplicationOriginsEntry>();
      if (e) out[e.clientId] = e.origins;
      expect(key).toBe(corsOriginsKey(e?.clientId ?? ''));
    }
    return out;
  };

  beforeAll(async () => {
    db = await createTestDatabase('developer_origins');
    nc = await connect({ servers: NATS_URL });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await new Kvm(nc)
      .open(corsOriginsBucket(namespace))
      .then((kv) => kv.destroy())
      .catch(() => undefined);
    await nc.close();
    await db?.drop();
  });

  it('stores the origins serialized and publishes them for the gateway', async () => {
    const path = writeBootstrapFile(
      file({
        'acme-web': ['https://App.Acme.test:443', 'http://127.0.0.1:5173', 'https://app.acme.test'],
        'acme-cli': undefined,
        'acme~spa': ['https://spa.acme.test'],
      }),
    );
    const app = await boot(path);
    const rows = await app.get(DataSource).query(`SELECT client_id, allowed_origins FROM applications ORDER BY client_id`);
    expect(rows).toEqual([
      { client_id: 'acme-cli', allowed_origins: [] },
      { client_id: 'acme-web', allowed_origins: ['http://127.0.0.1:5173', 'https://app.acme.test'] },
      { client_id: 'acme~spa', allowed_origins: ['https://spa.acme.test'] },
    ]);
    expect(await entries()).toEqual({
      'acme-web': ['http://127.0.0.1:5173', 'https://app.acme.test'],
      'acme~spa': ['https://spa.acme.test'],
    });
    // A second pass finds nothing to change.
    expect(await app.get(OriginsPublisher).publish()).toEqual({ written: 0, removed: 0 });
    await app.close();
    apps.pop();

    // Restart with one application's origins changed and another's removed.
    writeBootstrapFile(
      file({ 'acme-web': ['https://app.acme.test'], 'acme-cli': undefined, 'acme~spa': [] }),
      path.replace(/\/bootstrap\.json$/, ''),
    );
    await boot(path);
    expect(await entries()).toEqual({ 'acme-web': ['https://app.acme.test'] });
  });

  it('stops the boot for an origin with a path, a wildcard or another scheme', async () => {
    for (const bad of ['https://app.acme.test/', 'https://*.acme.test', 'ftp://app.acme.test', 'app.acme.test']) {
      const err = await bootFailure({
        ...baseEnv(db.url),
        EVENTS_NAMESPACE: namespace,
        VAULT_BOOTSTRAP_FILE: writeBootstrapFile(file({ 'acme-web': [bad] })),
      });
      expect(err.message).toContain('tenants.0.applications.0.allowedOrigins');
    }
  });
});
