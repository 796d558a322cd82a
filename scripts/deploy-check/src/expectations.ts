/** What the platform's deployment must contain: the apps, their ports and databases. */
export interface AppSpec {
  name: string;
  /** Container port the probes and the Service use. */
  port: number;
  /** Database the app owns (and so a migration step), if any. */
  database?: string;
  /** Variables the app refuses to start without in production: each must come from a Secret. */
  secrets?: string[];
}

export const APPS: AppSpec[] = [
  { name: 'gateway', port: 8443 },
  { name: 'developer-service', port: 3001, database: 'vault_developer' },
  { name: 'user-service', port: 3002, database: 'vault_user' },
  { name: 'records-service', port: 3003, database: 'vault_records', secrets: ['WEBHOOK_SECRET_KEYS', 'ENCRYPTION_KEYRING'] },
];

export const DATABASE_APPS = APPS.filter((a) => a.database);

/** Services of docker-compose.yml that may publish ports on every interface. */
export const PUBLISHED_SERVICES = ['gateway'];

/** Module hosts the Ingress must route to the gateway. */
export const MODULE_HOST_PREFIXES = ['developer-api.', 'user-api.', 'records-api.'];

export const migrateName = (app: string) => `${app}-migrate`;
