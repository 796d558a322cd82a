import { APPS, DATABASE_APPS, migrateName, PUBLISHED_SERVICES } from './expectations';
import { Violation, violation } from './violation';

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);
const SECRET_KEY = /(PASSWORD|SECRET|TOKEN|PRIVATE_KEY)/;
const ACCEPTED_CONDITIONS = ['service_healthy', 'service_completed_successfully'];

/**
 * Checks a parsed docker-compose.yml (YAML merge keys resolved): every expected
 * service is there; every service has a pinned image or a build; long-running
 * services have a healthcheck; every depends_on uses service_healthy or
 * service_completed_successfully against a service that can satisfy it; each app
 * with a database waits for its one-shot migration and does not migrate at start;
 * only the gateway publishes ports on all interfaces; no secret value is written in
 * the file (secrets are ${...} interpolations from .env); every service has a restart
 * policy (`restart-policy`); fixed addresses cannot be handed to another container first
 * (`compose-fixed-address`).
 */
export function checkCompose(doc: unknown, where: string): Violation[] {
  const out: Violation[] = [];
  const fail = (at: string, rule: string, message: string) => out.push(violation(`${where} ${at}`.trim(), rule, message));
  if (!isDict(doc) || !isDict(doc['services'])) {
    fail('', 'compose-services', 'no services mapping');
    return out;
  }
  const services = doc['services'] as Record<string, Dict>;
  const declaredVolumes = isDict(doc['volumes']) ? Object.keys(doc['volumes']) : [];

  const expected = ['postgres', 'nats', ...APPS.map((a) => a.name), ...DATABASE_APPS.map((a) => migrateName(a.name))];
  for (const name of expected) if (!services[name]) fail(`services.${name}`, 'compose-services', 'missing');

  const oneShot = (s: Dict | undefined) => !!s && (s['restart'] === 'no' || s['restart'] === false);
  const awaitedToComplete = new Set(
    Object.values(services)
      .flatMap((s) => (isDict(s) && isDict(s['depends_on']) ? Object.entries(s['depends_on']) : []))
      .filter(([, spec]) => isDict(spec) && spec['condition'] === 'service_completed_successfully')
      .map(([target]) => target),
  );
  const hasHealthcheck = (s: Dict | undefined) => {
    const hc = s?.['healthcheck'];
    return isDict(hc) && hc['disable'] !== true && Array.isArray(hc['test']) && hc['test'].length > 1 && hc['test'][0] !== 'NONE';
  };

  for (const [name, svc] of Object.entries(services)) {
    const at = `services.${name}`;
    if (!isDict(svc)) {
      fail(at, 'compose-services', 'not a mapping');
      continue;
    }
    const image = svc['image'];
    if (typeof image === 'string') {
      const tag = /:([^/:]+)$/.exec(image)?.[1];
      if (!tag && !image.includes('@sha256:')) fail(at, 'pinned-image', `image "${image}" has no tag`);
      else if (tag === 'latest') fail(at, 'pinned-image', `image "${image}" uses the latest tag`);
    } else if (!svc['build']) {
      fail(at, 'pinned-image', 'neither image nor build');
    }
    if (svc['build'] !== undefined && !isDict(svc['build'])) fail(at, 'compose-build', 'build must name context and dockerfile');

    if (oneShot(svc)) {
      if (hasHealthcheck(svc))
        fail(at, 'one-shot', 'a one-shot step has no healthcheck to wait for: others depend on its completion');
    } else if (!hasHealthcheck(svc)) {
      fail(at, 'healthcheck', 'a long-running service needs a healthcheck');
    }

    checkRestartPolicy(svc, oneShot(svc), awaitedToComplete.has(name), (message) => fail(at, 'restart-policy', message));

    const deps = svc['depends_on'];
    if (Array.isArray(deps)) fail(at, 'depends-on-condition', 'depends_on must use the long form with a condition');
    else if (isDict(deps)) {
      for (const [target, spec] of Object.entries(deps)) {
        const condition = isDict(spec) ? spec['condition'] : undefined;
        if (!services[target]) fail(at, 'depends-on-condition', `depends on unknown service "${target}"`);
        else if (typeof condition !== 'string' || !ACCEPTED_CONDITIONS.includes(condition)) {
          fail(at, 'depends-on-condition', `depends on "${target}" without service_healthy or service_completed_successfully`);
        } else if (condition === 'service_healthy' && !hasHealthcheck(services[target])) {
          fail(at, 'depends-on-condition', `waits for "${target}" to be healthy but it has no healthcheck`);
        } else if (condition === 'service_completed_successfully' && !oneShot(services[target])) {
          fail(at, 'depends-on-condition', `waits for "${target}" to complete but it is not a one-shot step (restart: "no")`);
        }
      }
    }

    for (const p of Array.isArray(svc['ports']) ? svc['ports'] : []) {
      const text = isDict(p) ? `${p['host_ip'] ?? ''}:${p['published'] ?? ''}` : String(p);
      const loopbackOnly = /^127\.0\.0\.1:|^\[?::1\]?:/.test(text);
      if (!PUBLISHED_SERVICES.includes(name) && !loopbackOnly) {
        fail(
          at,
          'published-ports',
          `publishes ${JSON.stringify(p)} on every interface: only the gateway may (bind others to 127.0.0.1)`,
        );
      }
    }

    const env = environment(svc['environment']);
    for (const [key, value] of Object.entries(env)) {
      if (value === undefined || value === null) continue;
      const v = String(value);
      if (SECRET_KEY.test(key) && !/^\$\{[^}]+\}$/.test(v)) {
        fail(at, 'no-secret-values', `${key} has a literal value: take it from .env as \${${key}}`);
      }
      if (/:\/\/[^/:@\s]+:([^@\s]+)@/.test(v) && !/:\/\/[^/:@\s]+:\$\{[^}]+\}@/.test(v)) {
        fail(at, 'no-secret-values', `${key} carries a literal password: interpolate it from .env`);
      }
    }

    for (const v of Array.isArray(svc['volumes']) ? svc['volumes'] : []) {
      const source = isDict(v) ? String(v['source'] ?? '') : String(v).split(':')[0];
      if (source && !/^[./~]/.test(source) && !declaredVolumes.includes(source)) {
        fail(at, 'compose-volumes', `uses volume "${source}" that is not declared under volumes`);
      }
    }
  }

  for (const app of DATABASE_APPS) {
    const svc = services[app.name];
    const migrate = services[migrateName(app.name)];
    if (!svc || !migrate) continue;
    const at = `services.${app.name}`;
    const deps = isDict(svc['depends_on']) ? (svc['depends_on'] as Record<string, Dict>) : {};
    if (deps[migrateName(app.name)]?.['condition'] !== 'service_completed_successfully') {
      fail(at, 'migration-order', `must wait for ${migrateName(app.name)} with service_completed_successfully`);
    }
    for (const backend of ['postgres', 'nats']) {
      if (deps[backend]?.['condition'] !== 'service_healthy')
        fail(at, 'migration-order', `must wait for ${backend} to be healthy`);
    }
    if (String(environment(svc['environment'])['DB_MIGRATE_ON_START']) !== 'false') {
      fail(at, 'migration-order', 'must set DB_MIGRATE_ON_START: "false" (its migration step runs them)');
    }
    const mAt = `services.${migrateName(app.name)}`;
    if (!oneShot(migrate)) fail(mAt, 'one-shot', 'a migration step must have restart: "no"');
    const command = Array.isArray(migrate['command']) ? migrate['command'].join(' ') : String(migrate['command'] ?? '');
    if (!/\bmigrate\b/.test(command)) fail(mAt, 'one-shot', 'command must run "node main.js migrate"');
    const mDeps = isDict(migrate['depends_on']) ? (migrate['depends_on'] as Record<string, Dict>) : {};
    if (mDeps['postgres']?.['condition'] !== 'service_healthy')
      fail(mAt, 'migration-order', 'must wait for postgres to be healthy');
    const url = String(environment(migrate['environment'])['DATABASE_URL'] ?? '');
    if (!url.endsWith(`/${app.database}`)) fail(mAt, 'database-per-service', `DATABASE_URL must name ${app.database}`);
    if (String(environment(svc['environment'])['DATABASE_URL'] ?? '') !== url) {
      fail(at, 'database-per-service', `DATABASE_URL must be the one its migration step uses (${app.database})`);
    }
  }

  const gateway = services['gateway'];
  if (gateway) {
    const deps = isDict(gateway['depends_on']) ? (gateway['depends_on'] as Record<string, Dict>) : {};
    for (const app of DATABASE_APPS) {
      if (deps[app.name]?.['condition'] !== 'service_healthy')
        fail('services.gateway', 'depends-on-condition', `must wait for ${app.name} to be healthy`);
    }
    if (!Array.isArray(gateway['ports']) || gateway['ports'].length === 0)
      fail('services.gateway', 'published-ports', 'the gateway must publish its ports');
  }

  out.push(...checkFixedAddresses(doc, services, where));

  const nats = services['nats'];
  if (nats) {
    const command = Array.isArray(nats['command']) ? nats['command'].join(' ') : String(nats['command'] ?? '');
    if (!/(^|\s)(-js|--jetstream)(\s|$)/.test(command)) fail('services.nats', 'nats-jetstream', 'NATS must run with --jetstream');
    const storeDir = /(?:-sd|--store_dir)\s+(\S+)/.exec(command)?.[1];
    const mounts = (Array.isArray(nats['volumes']) ? nats['volumes'] : []).map((v) =>
      isDict(v) ? String(v['target']) : String(v).split(':')[1],
    );
    if (!storeDir || !mounts.includes(storeDir))
      fail('services.nats', 'nats-jetstream', 'the JetStream store_dir must be on a volume');
  }
  return out;
}

const RESTART_POLICY = /^(no|always|unless-stopped|on-failure(:[1-9]\d*)?)$/;

/**
 * Rule `restart-policy`: every service says what happens when its process ends, with
 * `restart:` (the key every compose honours; docker-compose 1.x ignores
 * `deploy.restart_policy`). A long-running service restarts (`unless-stopped`, `always` or
 * `on-failure`), so a crashed or killed container comes back; `restart: "no"` is for a
 * one-shot step that another service waits for with service_completed_successfully.
 */
function checkRestartPolicy(svc: Dict, oneShot: boolean, awaited: boolean, fail: (message: string) => void): void {
  const restart = svc['restart'];
  if (restart === undefined || restart === null) {
    const deployOnly = isDict(svc['deploy']) && svc['deploy']['restart_policy'] !== undefined;
    fail(
      `no restart policy${deployOnly ? ' (deploy.restart_policy is ignored by docker-compose 1.x)' : ''}: set restart: unless-stopped, or "no" for a one-shot step`,
    );
  } else if (restart !== false && (typeof restart !== 'string' || !RESTART_POLICY.test(restart))) {
    fail(`restart: ${JSON.stringify(restart)} is not a restart policy (no, always, unless-stopped, on-failure[:N])`);
  } else if (oneShot && !awaited) {
    fail(
      'restart: "no", but no service waits for it to complete (service_completed_successfully): a long-running service would stay down after a crash; only a one-shot step others wait for may use it',
    );
  }
}

/** An IPv4 address as a number, or undefined. */
function ipv4(text: string): number | undefined {
  const parts = text.trim().split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** Whether `address` is inside `cidr` (a.b.c.d/n); undefined when either does not parse. */
function inCidr(address: string, cidr: string): boolean | undefined {
  const [base, bits] = cidr.split('/');
  const a = ipv4(address);
  const b = ipv4(base ?? '');
  const n = Number(bits);
  if (a === undefined || b === undefined || !Number.isInteger(n) || n < 0 || n > 32) return undefined;
  const size = 2 ** (32 - n);
  return Math.floor(a / size) === Math.floor(b / size);
}

/**
 * Rule `compose-fixed-address`: a service's fixed `ipv4_address` is inside its network's
 * subnet and outside the network's `ip_range`, which must be set: compose creates containers
 * one after the other and the engine hands out addresses in turn, so without a range that
 * excludes it another container can take the fixed address first and the service does not
 * start ("address already allocated"). Every `TRUSTED_PROXIES` names the gateway's address.
 */
function checkFixedAddresses(doc: Dict, services: Record<string, Dict>, where: string): Violation[] {
  const out: Violation[] = [];
  const networks = isDict(doc['networks']) ? doc['networks'] : {};
  const poolsOf = (network: string) => {
    const ipam = isDict(networks[network]) ? (networks[network] as Dict)['ipam'] : undefined;
    const config = isDict(ipam) && Array.isArray(ipam['config']) ? ipam['config'] : [];
    return config.filter(isDict).map((c) => ({
      subnet: String(c['subnet'] ?? ''),
      ipRange: c['ip_range'] === undefined ? undefined : String(c['ip_range']),
    }));
  };
  const fixed = new Map<string, string>();
  for (const [name, svc] of Object.entries(services)) {
    if (!isDict(svc) || !isDict(svc['networks'])) continue;
    for (const [network, settings] of Object.entries(svc['networks'])) {
      const address = isDict(settings) && typeof settings['ipv4_address'] === 'string' ? settings['ipv4_address'] : undefined;
      if (!address) continue;
      fixed.set(name, address);
      const at = `${where} services.${name}`;
      const pool = poolsOf(network).find((p) => inCidr(address, p.subnet));
      if (!pool)
        out.push(
          violation(at, 'compose-fixed-address', `ipv4_address ${address} is in no subnet of network "${network}" (ipam.config)`),
        );
      else if (!pool.ipRange) {
        out.push(
          violation(
            at,
            'compose-fixed-address',
            `network "${network}" has no ip_range: another container may be given ${address} before ${name} starts; set ip_range to a part of ${pool.subnet} without it`,
          ),
        );
      } else if (inCidr(address, pool.ipRange) !== false) {
        out.push(
          violation(
            at,
            'compose-fixed-address',
            `ipv4_address ${address} is inside ip_range ${pool.ipRange}, from which other containers get their addresses`,
          ),
        );
      }
    }
  }
  const gateway = fixed.get('gateway');
  if (gateway) {
    for (const [name, svc] of Object.entries(services)) {
      const proxies = isDict(svc) ? environment(svc['environment'])['TRUSTED_PROXIES'] : undefined;
      if (proxies === undefined || proxies === null) continue;
      const trusted = String(proxies)
        .split(',')
        .map((p) => p.trim());
      if (!trusted.some((p) => p === gateway || (p.includes('/') && inCidr(gateway, p)))) {
        out.push(
          violation(
            `${where} services.${name}`,
            'compose-fixed-address',
            `TRUSTED_PROXIES (${String(proxies)}) does not name the gateway's address ${gateway}`,
          ),
        );
      }
    }
  }
  return out;
}

/** Compose environment as a map (it may be written as a list of KEY=value). */
function environment(env: unknown): Record<string, unknown> {
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((e) => String(e)).map((e) => [e.split('=')[0], e.includes('=') ? e.slice(e.indexOf('=') + 1) : undefined]),
    );
  }
  return isDict(env) ? env : {};
}

/**
 * Rule `compose-version`: one compose file for Docker Compose v2, `podman compose` and
 * docker-compose 1.29 (the one Debian ships, used against podman's Docker API). 1.x refuses
 * a top-level `name:`, so the file has none: the project is named by COMPOSE_PROJECT_NAME
 * in .env or by -p (deploy:smoke always passes -p).
 */
export function checkComposeVersion(doc: unknown, where: string): Violation[] {
  if (!isDict(doc) || doc['name'] === undefined) return [];
  return [
    violation(
      `${where} name`,
      'compose-version',
      'docker-compose 1.x refuses a top-level name: drop it and name the project with COMPOSE_PROJECT_NAME in .env or -p',
    ),
  ];
}
