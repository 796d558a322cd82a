import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkCompose, checkComposeVersion } from './compose-rules';
import { parseYamlDocuments } from './kustomize';

/* eslint-disable @typescript-eslint/no-explicit-any -- compose files are untyped YAML */
const REPO_COMPOSE = parseYamlDocuments(
  fs.readFileSync(path.join(__dirname, '../../../docker-compose.yml'), 'utf8'),
  'docker-compose.yml',
)[0] as any;

function check(change: (doc: any) => void) {
  const doc = structuredClone(REPO_COMPOSE);
  change(doc);
  return checkCompose(doc, 'docker-compose.yml');
}
const rules = (change: (doc: any) => void) => [...new Set(check(change).map((v) => v.rule))];

describe('checkCompose', () => {
  it('accepts the repository docker-compose.yml', () => {
    expect(checkCompose(REPO_COMPOSE, 'docker-compose.yml')).toEqual([]);
  });

  it('resolves the YAML merge keys of the shared app settings', () => {
    expect(REPO_COMPOSE.services['user-service'].healthcheck.test).toEqual(['CMD', 'node', 'healthcheck.js']);
    expect(REPO_COMPOSE.services['user-service'].environment.NATS_URL).toBe('nats://nats:4222');
  });

  it('requires every platform service', () => {
    const out = check((d) => delete d.services['records-service-migrate']);
    expect(out.map((v) => v.where)).toContain('docker-compose.yml services.records-service-migrate');
  });

  it('requires a healthcheck on long-running services and a waitable condition on depends_on', () => {
    expect(rules((d) => delete d.services.nats.healthcheck)).toEqual(['healthcheck', 'depends-on-condition']);
    expect(rules((d) => (d.services.gateway.depends_on = ['user-service']))).toEqual(['depends-on-condition']);
    expect(rules((d) => (d.services.gateway.depends_on['user-service'].condition = 'service_started'))).toEqual([
      'depends-on-condition',
    ]);
    expect(rules((d) => (d.services.gateway.depends_on.nope = { condition: 'service_healthy' }))).toEqual([
      'depends-on-condition',
    ]);
  });

  it('keeps migrations one-shot and before their app', () => {
    expect(rules((d) => (d.services['user-service-migrate'].restart = 'unless-stopped'))).toEqual([
      'healthcheck',
      'depends-on-condition',
      'one-shot',
    ]);
    expect(rules((d) => delete d.services['user-service'].depends_on['user-service-migrate'])).toEqual([
      'restart-policy',
      'migration-order',
    ]);
    expect(rules((d) => (d.services['user-service'].environment.DB_MIGRATE_ON_START = 'true'))).toEqual(['migration-order']);
    expect(rules((d) => (d.services['user-service-migrate'].command = ['node', 'main.js']))).toEqual(['one-shot']);
  });

  it('gives each service its own database', () => {
    const out = check((d) => {
      d.services['records-service'].environment.DATABASE_URL =
        'postgres://postgres:${POSTGRES_PASSWORD}@postgres:5432/vault_user';
      d.services['records-service-migrate'].environment.DATABASE_URL =
        'postgres://postgres:${POSTGRES_PASSWORD}@postgres:5432/vault_user';
    });
    expect(out.map((v) => v.rule)).toEqual(['database-per-service']);
  });

  it('publishes only the gateway on every interface', () => {
    expect(rules((d) => (d.services.postgres.ports = ['5432:5432']))).toEqual(['published-ports']);
    expect(rules((d) => (d.services.postgres.ports = ['127.0.0.1:5432:5432']))).toEqual([]);
    expect(rules((d) => delete d.services.gateway.ports)).toEqual(['published-ports']);
  });

  it('keeps secret values out of the file', () => {
    expect(rules((d) => (d.services['developer-service'].environment.KEY_ENCRYPTION_SECRET = 'hunter2'))).toEqual([
      'no-secret-values',
    ]);
    expect(
      rules((d) => {
        d.services['user-service'].environment.DATABASE_URL = 'postgres://postgres:pw@postgres:5432/vault_user';
        d.services['user-service-migrate'].environment.DATABASE_URL = 'postgres://postgres:pw@postgres:5432/vault_user';
      }),
    ).toEqual(['no-secret-values']);
  });

  it('pins images and checks NATS JetStream storage and volumes', () => {
    expect(rules((d) => (d.services.nats.image = 'nats:latest'))).toEqual(['pinned-image']);
    expect(rules((d) => (d.services.nats.image = 'nats'))).toEqual(['pinned-image']);
    expect(rules((d) => (d.services.nats.command = ['--http_port', '8222']))).toEqual(['nats-jetstream']);
    expect(rules((d) => (d.services.nats.volumes = ['other:/data']))).toEqual(['compose-volumes']);
  });

  it('gives every service a restart policy: long-running ones come back, "no" only for awaited one-shot steps', () => {
    for (const svc of Object.values(REPO_COMPOSE.services) as any[]) expect(svc.restart).toBeDefined();
    expect(rules((d) => delete d.services.nats.restart)).toEqual(['restart-policy']);
    expect(rules((d) => delete d.services['developer-service-migrate'].restart)).toContain('restart-policy');
    expect(rules((d) => (d.services.mailpit.restart = 'sometimes'))).toEqual(['restart-policy']);
    expect(rules((d) => (d.services.mailpit.restart = 'on-failure:3'))).toEqual([]);
    expect(rules((d) => (d.services['user-service-migrate'].restart = false))).toEqual([]);
    const deployOnly = check((d) => {
      delete d.services.gateway.restart;
      d.services.gateway.deploy = { restart_policy: { condition: 'any' } };
    });
    expect(deployOnly.map((v) => `${v.where}: [${v.rule}] ${v.message}`)).toEqual([
      expect.stringMatching(
        /^docker-compose\.yml services\.gateway: \[restart-policy\] no restart policy \(deploy\.restart_policy is ignored by docker-compose 1\.x\)/,
      ),
    ]);
    // A service nobody waits for to complete, with restart "no" and no healthcheck, would stay down after a crash.
    expect(
      rules((d) => {
        d.services.mailpit.restart = 'no';
        delete d.services.mailpit.healthcheck;
        delete d.services['user-service'].depends_on.mailpit;
      }),
    ).toEqual(['restart-policy']);
  });

  it("keeps the gateway's fixed address out of the range other containers are given, and trusted by the services", () => {
    expect(REPO_COMPOSE.services.gateway.networks.default.ipv4_address).toBe('172.30.90.254');
    expect(REPO_COMPOSE.networks.default.ipam.config).toEqual([{ subnet: '172.30.90.0/24', ip_range: '172.30.90.0/25' }]);
    const messages = (change: (doc: any) => void) => check(change).map((v) => `${v.where}: [${v.rule}] ${v.message}`);
    expect(messages((d) => delete d.networks.default.ipam.config[0].ip_range)).toEqual([
      'docker-compose.yml services.gateway: [compose-fixed-address] network "default" has no ip_range: another container may be given 172.30.90.254 before gateway starts; set ip_range to a part of 172.30.90.0/24 without it',
    ]);
    expect(messages((d) => (d.networks.default.ipam.config[0].ip_range = '172.30.90.128/25'))).toEqual([
      'docker-compose.yml services.gateway: [compose-fixed-address] ipv4_address 172.30.90.254 is inside ip_range 172.30.90.128/25, from which other containers get their addresses',
    ]);
    expect(rules((d) => (d.services.gateway.networks.default.ipv4_address = '10.0.0.5'))).toEqual(['compose-fixed-address']);
    // The services trust the gateway's address (or a range holding it), and nothing else needs changing with it.
    const moved = check((d) => (d.services.gateway.networks.default.ipv4_address = '172.30.90.200'));
    expect(moved.map((v) => v.where)).toEqual([
      'docker-compose.yml services.developer-service',
      'docker-compose.yml services.user-service',
      'docker-compose.yml services.records-service',
    ]);
    expect(moved[0].message).toBe("TRUSTED_PROXIES (172.30.90.254) does not name the gateway's address 172.30.90.200");
    expect(
      rules((d) => {
        d.services.gateway.networks.default.ipv4_address = '172.30.90.200';
        for (const s of ['developer-service', 'user-service', 'records-service'])
          d.services[s].environment.TRUSTED_PROXIES = '172.30.90.128/25';
      }),
    ).toEqual([]);
  });

  it('retries a migration step a few times and gives it no healthcheck', () => {
    for (const app of ['developer-service', 'user-service', 'records-service']) {
      const migrate = REPO_COMPOSE.services[`${app}-migrate`];
      expect(migrate.command.join(' ')).toMatch(/for attempt in 1 2 3; do node main\.js migrate && exit 0;.*done; exit 1$/);
      expect(migrate.healthcheck).toEqual({ disable: true });
    }
  });

  it('has no top-level name, which docker-compose 1.x refuses (the project is named with -p or COMPOSE_PROJECT_NAME)', () => {
    expect(REPO_COMPOSE.name).toBeUndefined();
    expect(checkComposeVersion(REPO_COMPOSE, 'docker-compose.yml')).toEqual([]);
    expect(
      checkComposeVersion({ ...REPO_COMPOSE, name: 'vault' }, 'docker-compose.yml').map((v) => `${v.where}: [${v.rule}]`),
    ).toEqual(['docker-compose.yml name: [compose-version]']);
  });

  it('takes the gateway host ports from .env, defaulting to 8443 and 8080', () => {
    expect(REPO_COMPOSE.services.gateway.ports).toEqual(['${GATEWAY_HTTPS_PORT:-8443}:8443', '${GATEWAY_HTTP_PORT:-8080}:8080']);
    const example = fs.readFileSync(path.join(__dirname, '../../../deploy/compose/env.example'), 'utf8');
    expect(example).toMatch(/^COMPOSE_PROJECT_NAME=vault$/m);
    expect(example).toMatch(/^# GATEWAY_HTTPS_PORT=8443$/m);
    expect(example).toMatch(/^# GATEWAY_HTTP_PORT=8080$/m);
  });
});
