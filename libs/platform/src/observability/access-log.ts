import { Logger } from '@nestjs/common';
import { inspect } from 'node:util';

/** The fields of one access-log line (docs/deploy.md, "Access log"). */
export interface AccessLogFields {
  method: string;
  /** The route template (`/api/v1/vault/vault-id/:vaultId`), `unmatched`, or at the gateway the module. */
  route: string;
  status: number;
  duration_ms: number;
  /** Bytes written for the answer on the connection, status line and headers included. */
  bytes: number;
  request_id?: string;
  trace_id?: string;
  tenant?: string;
}

/**
 * One access-log line: JSON fields under `message` with LOG_FORMAT=json, `key=value`
 * pairs on one line with LOG_FORMAT=text (Nest's logger prints an object by util.inspect).
 * Only these fields are ever written: no path, no query string, no header.
 */
export class AccessLogLine {
  constructor(readonly fields: AccessLogFields) {}

  toJSON(): AccessLogFields {
    return this.fields;
  }

  toString(): string {
    return Object.entries(this.fields)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => `${k}=${typeof v === 'string' && /[\s"=]/.test(v) ? JSON.stringify(v) : String(v)}`)
      .join(' ');
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

const logger = new Logger('Access');

/** Writes one access-log line at level `log` (LOG_LEVEL=warn and above leave it out). */
export function writeAccessLog(fields: AccessLogFields): void {
  logger.log(new AccessLogLine(fields));
}
