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
 * Outbound HTTP of webhook deliveries (undici): the url is checked before each request
 * without DNS (scheme, an address written in it), and every connection resolves its host
 * once, through the guard's lookup (TargetGuard.lookup for https, plainLookup for http),
 * so the address checked is the address connected to. Redirects are never followed (a
 * 3xx is a failed attempt), connect and response time are bounded, and only the first
 * EXCERPT_CHARS characters of a response body are read.
 */
export class OutboundHttp {
  private readonly agent: Agent;
  private readonly plainAgent: Agent;

  constructor(private readonly o: OutboundHttpOptions) {
    this.agent = this.agentFor(o.guard.lookup);
    this.plainAgent = this.agentFor(o.guard.plainLookup);
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const abort = AbortSignal.timeout(this.o.responseTimeoutMs + this.o.connectTimeoutMs);
    try {
      const target = this.o.guard.checkUrl(url);
      const res = await request(target.url, {
        method: 'POST',
        dispatcher: target.plain ? this.plainAgent : this.agent,
        headers: { 'content-type': 'application/json', 'user-agent': 'vault-webhooks/1', ...headers },
        body,
        signal: abort,
      });
      return { status: res.statusCode, excerpt: await excerpt(res.body), error: null };
    } catch (err) {
      return { status: null, excerpt: null, error: describe(err) };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.plainAgent.close()]);
  }

  private agentFor(lookup: TargetGuard['lookup']): Agent {
    return new Agent({
      connect: { lookup, timeout: this.o.connectTimeoutMs } as object,
      headersTimeout: this.o.responseTimeoutMs,
      bodyTimeout: this.o.responseTimeoutMs,
      keepAliveTimeout: 4000,
      connections: this.o.connectionsPerOrigin,
    });
  }
}

/**
 * The first characters of a body; the rest is not read (the connection is dropped). A NUL,
 * which a PostgreSQL text column refuses, is stored as U+FFFD.
 */
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
  return text ? text.slice(0, EXCERPT_CHARS).replaceAll('\u0000', '\uFFFD') : null;
}

function describe(err: unknown): string {
  const e = err as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const cause = e.cause?.message ? ` (${e.cause.message})` : '';
  return `${e.code ?? e.cause?.code ?? 'error'}: ${e.message ?? String(err)}${cause}`.slice(0, 500);
}
