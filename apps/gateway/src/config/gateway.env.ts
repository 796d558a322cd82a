import { BaseEnv, ToInt } from '@vault/platform';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { parseCidrList } from '../proxy/client-address';

const MIB = 1024 * 1024;
const SERVICE_URL = { require_tld: false, protocols: ['http'], require_protocol: true };

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

  @IsUrl(SERVICE_URL)
  DEVELOPER_SERVICE_URL = 'http://127.0.0.1:3001';

  @IsUrl(SERVICE_URL)
  USER_SERVICE_URL = 'http://127.0.0.1:3002';

  @IsUrl(SERVICE_URL)
  RECORDS_SERVICE_URL = 'http://127.0.0.1:3003';

  /** Largest JSON request body (application/json, *+json) forwarded. */
  @ToInt()
  @IsInt()
  @Min(1)
  MAX_JSON_BODY_BYTES = MIB;

  /** Largest body of any other type (file uploads); services apply the plan limits below it. */
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

  /** Requests per minute per client IP address; 0 turns the limit off. */
  @ToInt()
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE = 1200;
}
