import { BaseEnv, JetStreamReplicas, ToInt, UrlSetting } from '@vault/platform/config';
import { Equals, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { EVENTS_NAMESPACE_PATTERN } from '@vault/platform/events';
import { parseCidrList } from './cidr-list';

const MIB = 1024 * 1024;
/** Upstreams take no credentials: a URL carrying a user name or password is refused. */
const SERVICE_URL = { require_tld: false, protocols: ['http'], require_protocol: true, disallow_auth: true };

/** Configuration of the gateway, validated at boot. */
export class GatewayEnv extends BaseEnv {
  /** Public domain: modules answer at developer-api.<domain>, user-api.<domain>, records-api.<domain>. */
  @Matches(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, {
    message: 'GATEWAY_DOMAIN must be a lower-case DNS name such as localhost or example.com',
  })
  GATEWAY_DOMAIN = 'localhost';

  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTPS_PORT = 8443;

  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT = 8080;

  /** PEM certificate (chain) file; set together with TLS_KEY_FILE. */
  @ValidateIf((e: GatewayEnv) => e.TLS_CERT_FILE !== undefined || e.TLS_KEY_FILE !== undefined)
  @IsString({ message: 'TLS_CERT_FILE must be set together with TLS_KEY_FILE' })
  TLS_CERT_FILE?: string;

  /** PEM private key file; set together with TLS_CERT_FILE. */
  @ValidateIf((e: GatewayEnv) => e.TLS_CERT_FILE !== undefined || e.TLS_KEY_FILE !== undefined)
  @IsString({ message: 'TLS_KEY_FILE must be set together with TLS_CERT_FILE' })
  TLS_KEY_FILE?: string;

  /** Where the self-signed certificate is kept when no TLS files are configured. */
  @IsString()
  @IsOptional()
  CERT_DIR = '.data/certs';

  @UrlSetting()
  @IsUrl(SERVICE_URL)
  DEVELOPER_SERVICE_URL = 'http://127.0.0.1:3001';

  @UrlSetting()
  @IsUrl(SERVICE_URL)
  USER_SERVICE_URL = 'http://127.0.0.1:3002';

  @UrlSetting()
  @IsUrl(SERVICE_URL)
  RECORDS_SERVICE_URL = 'http://127.0.0.1:3003';

  /** Largest request body of every route that is not an upload route (proxy/body-limit.ts), whatever its type. */
  @ToInt()
  @IsInt()
  @Min(1)
  MAX_JSON_BODY_BYTES = MIB;

  /** Largest request body of an upload route; records-service applies the plan limits below it. */
  @ToInt()
  @IsInt()
  @Min(1)
  MAX_UPLOAD_BYTES = 5 * 1024 * MIB;

  /** An upstream connection idle (no bytes either way) for this long is cut: 504 if nothing was answered yet. */
  @ToInt()
  @IsInt()
  @Min(1)
  UPSTREAM_TIMEOUT_MS = 60_000;

  /**
   * Proxies in front of the gateway (Ingress, load balancer) as comma-separated
   * addresses or CIDR ranges: from them X-Forwarded-For names the client.
   * Empty (default): the gateway is the edge and the socket peer is the client.
   */
  @IsOptional()
  @ValidateBy({
    name: 'isCidrList',
    validator: {
      validate: (value: unknown) => {
        try {
          return typeof value === 'string' && (parseCidrList(value), true);
        } catch {
          return false;
        }
      },
      defaultMessage: () => 'TRUSTED_PROXY_CIDRS must list addresses or CIDR ranges separated by commas',
    },
  })
  TRUSTED_PROXY_CIDRS?: string;

  /** The former single per-address limit, replaced by the four below: set, it stops the start naming them. */
  @ValidateIf((e: GatewayEnv) => e.RATE_LIMIT_PER_MINUTE !== undefined)
  @Equals(undefined, {
    message:
      'RATE_LIMIT_PER_MINUTE is replaced by RATE_LIMIT_CALLER_PER_MINUTE, RATE_LIMIT_TENANT_PER_MINUTE, ' +
      'RATE_LIMIT_ANONYMOUS_PER_MINUTE and RATE_LIMIT_ADDRESS_PER_MINUTE (docs/gateway.md)',
  })
  RATE_LIMIT_PER_MINUTE?: string;

  /** Requests per minute of one authenticated caller (tenant and subject of its bearer token); 0 turns it off. */
  @ToInt()
  @IsInt()
  @Min(0)
  RATE_LIMIT_CALLER_PER_MINUTE = 600;

  /** Requests per minute of all callers of one tenant together; 0 turns it off. */
  @ToInt()
  @IsInt()
  @Min(0)
  RATE_LIMIT_TENANT_PER_MINUTE = 6000;

  /** Requests per minute without a readable bearer token, per client address; 0 turns it off. */
  @ToInt()
  @IsInt()
  @Min(0)
  RATE_LIMIT_ANONYMOUS_PER_MINUTE = 300;

  /** Every request per minute from one client address, with a token or not (bounds the identities one address can name); 0 turns it off. */
  @ToInt()
  @IsInt()
  @Min(0)
  RATE_LIMIT_ADDRESS_PER_MINUTE = 12000;

  /** `nats`: counters shared by every gateway process through a NATS KV bucket; `memory`: this process only. */
  @IsIn(['nats', 'memory'])
  RATE_LIMIT_STORE: 'nats' | 'memory' = 'nats';

  /** NATS with JetStream (comma-separated for a cluster): the shared rate-limit counters and the browser origins. */
  @UrlSetting()
  @IsString()
  NATS_URL = 'nats://127.0.0.1:4222';

  /** Replicas of the rate-limit bucket: one per NATS server, at most 5 (an existing bucket keeps its own). */
  @JetStreamReplicas()
  KV_REPLICAS = 1;

  /**
   * Prefix of the platform's JetStream names, the same as the modules' (`ns_cors_origins`: the
   * bucket of browser origins the developer module publishes); empty for none.
   */
  @IsString()
  @Matches(EVENTS_NAMESPACE_PATTERN, { message: 'EVENTS_NAMESPACE may hold letters, digits, _ and - only' })
  EVENTS_NAMESPACE = '';

  /** KV bucket of the rate-limit counters; every gateway process of one deployment uses the same. */
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'RATE_LIMIT_BUCKET may hold letters, digits, _ and - only' })
  RATE_LIMIT_BUCKET = 'gateway_rate_limits';

  /** How often each process writes its changed counts to the shared store (milliseconds). */
  @ToInt()
  @IsInt()
  @Min(10)
  @Max(5000)
  RATE_LIMIT_SYNC_MS = 200;
}
