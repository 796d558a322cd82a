import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkCompose, checkComposeVersionNote } from './compose-rules';
import { parseYamlDocuments } from './kustomize';

/* eslint-disable @typescript-eslint/no-explicit-any -- compose files are untyped YAML */
const REPO_COMPOSE = parseYamlDocuments(fs.readFileSync(path.join(__dirname, '../../../docker-compose.yml'), 'utf8'), 'docker-compose.yml')[0] as any;

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
    expect(rules((d) => (d.services.gateway.depends_on['user-service'].condition = 'service_started'))).toEqual(['depends-on-condition']);
    expect(rules((d) => (d.services.gateway.depends_on.nope = { condition: 'service_healthy' }))).toEqual(['depends-on-condition']);
  });

  it('keeps migrations one-shot and before their app', () => {
    expect(rules((d) => (d.services['user-service-migrate'].restart = 'unless-stopped'))).toEqual(['healthcheck', 'depends-on-condition', 'one-shot']);
    expect(rules((d) => delete d.services['user-service'].depends_on['user-service-migrate'])).toEqual(['migration-order']);
    expect(rules((d) => (d.services['user-service'].environment.DB_MIGRATE_ON_START = 'true'))).toEqual(['migration-order']);
    expect(rules((d) => (d.services['user-service-migrate'].command = ['node', 'main.js']))).toEqual(['one-shot']);
  });

  it('gives each service its own database', () => {
    const out = check((d) => {
      d.services['records-service'].environment.DATABASE_URL = 'postgres://postgres:${POSTGRES_PASSWORD}@postgres:5432/vault_user';
      d.services['records-service-migrate'].environment.DATABASE_URL = 'postgres://postgres:${POSTGRES_PASSWORD}@postgres:5432/vault_user';
    });
    expect(out.map((v) => v.rule)).toEqual(['database-per-service']);
  });

  it('publishes only the gateway on every interface', () => {
    expect(rules((d) => (d.services.postgres.ports = ['5432:5432']))).toEqual(['published-ports']);
    expect(rules((d) => (d.services.postgres.ports = ['127.0.0.1:5432:5432']))).toEqual([]);
    expect(rules((d) => delete d.services.gateway.ports)).toEqual(['published-ports']);
  });

  it('keeps secret values out of the file', () => {
    expect(rules((d) => (d.services['developer-service'].environment.KEY_ENCRYPTION_SECRET = 'hunter2'))).toEqual(['no-secret-values']);
    expect(rules((d) => {
      d.services['user-service'].environment.DATABASE_URL = 'postgres://postgres:pw@postgres:5432/vault_user';
      d.services['user-service-migrate'].environment.DATABASE_URL = 'postgres://postgres:pw@postgres:5432/vault_user';
    })).toEqual(['no-secret-values']);
  });

  it('pins images and checks NATS JetStream storage and volumes', () => {
    expect(rules((d) => (d.services.nats.image = 'nats:latest'))).toEqual(['pinned-image']);
    expect(rules((d) => (d.services.nats.image = 'nats'))).toEqual(['pinned-image']);
    expect(rules((d) => (d.services.nats.command = ['--http_port', '8222']))).toEqual(['nats-jetstream']);
    expect(rules((d) => (d.services.nats.volumes = ['other:/data']))).toEqual(['compose-volumes']);
  });

  it('requires the docs to say Compose v2 is needed while the file has a top-level name', () => {
    const docs = fs.readFileSync(path.join(__dirname, '../../../docs/deploy.md'), 'utf8');
    expect(REPO_COMPOSE.name).toBe('vault');
    expect(checkComposeVersionNote(REPO_COMPOSE, docs, 'docker-compose.yml', 'docs/deploy.md')).toEqual([]);
    const silent = docs.replace(/Compose v2/gi, 'Compose');
    expect(checkComposeVersionNote(REPO_COMPOSE, silent, 'docker-compose.yml', 'docs/deploy.md').map((v) => `${v.where}: [${v.rule}]`)).toEqual(['docker-compose.yml name: [compose-version]']);
    expect(checkComposeVersionNote(REPO_COMPOSE, undefined, 'docker-compose.yml', 'docs/deploy.md').map((v) => v.rule)).toEqual(['compose-version']);
    const { name: _name, ...unnamed } = REPO_COMPOSE;
    expect(checkComposeVersionNote(unnamed, silent, 'docker-compose.yml', 'docs/deploy.md')).toEqual([]);
  });
});
