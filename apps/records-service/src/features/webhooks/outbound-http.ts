import { Agent, request } from 'undici';
import { TargetGuard } from './target-guard';

/** Characters of a response body kept for the delivery log. */
export const EXCERPT_CHARS = 256;

/** What one POST to a receiver came to. */
export interface PostResult {
  /** The response status, or null when no response came (refused target, network error, timeout). */
  status: number | null;
  /** The start of the response body. */
  excerpt: string | null;
  error: string | null;
}

export interface OutboundHttpOptions {
  guard: TargetGuard;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** Connections kept per receiver origin: as many as attempts may be in flight, so none waits for one. */
  connectionsPerOrigin: number;
}

/**
 * Outbound HTTP of webhook deliveries (undici): every connection resolves its host
 * through TargetGuard.lookup (the address checked is the address connected to), the
 * url is checked again before each request, redirects are never followed (a 3xx is a
 * failed attempt), connect and response time are bounded, and only the first
 * EXCERPT_CHARS characters of a response body are read.
 */
export class OutboundHttp {
  private readonly agent: Agent;

  constructor(private readonly o: OutboundHttpOptions) {
    this.agent = new Agent({
      connect: { lookup: o.guard.lookup, timeout: o.connectTimeoutMs } as object,
      headersTimeout: o.responseTimeoutMs,
      bodyTimeout: o.responseTimeoutMs,
      keepAliveTimeout: 4000,
      connections: o.connectionsPerOrigin,
    });
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const abort = AbortSignal.timeout(this.o.responseTimeoutMs + this.o.connectTimeoutMs);
    try {
      await this.o.guard.check(url);
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'user-agent': 'vault-webhooks/1', ...headers },
        body,
        signal: abort,
      });
      return { status: res.statusCode, excerpt: await excerpt(res.body), error: null };
    } catch (err) {
      return { status: null, excerpt: null, error: describe(err) };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The first characters of a body; the rest is not read (the connection is dropped). */
async function excerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  let text = '';
  try {
    for await (const chunk of body) {
      text += chunk.toString('utf8');
      if (text.length >= EXCERPT_CHARS) break;
    }
  } catch {
    // A body cut short still leaves what came.
  } finally {
    body.destroy();
  }
  return text ? text.slice(0, EXCERPT_CHARS) : null;
}

function describe(err: unknown): string {
  const e = err as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const cause = e.cause?.message ? ` (${e.cause.message})` : '';
  return `${e.code ?? e.cause?.code ?? 'error'}: ${e.message ?? String(err)}${cause}`.slice(0, 500);
}
