import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { errorFromResponse, FeedExpiredError } from '../errors.js';
import { sleep } from '../policy/net.js';
import { fullJitterDelay, type RetryOptions } from '../policy/retry-policy.js';
import type { Transport } from '../policy/transport.js';

/** A CloudEvents 1.0 event of the change feed and of webhooks (docs/change-feed.md). */
export interface CloudEvent<D = Record<string, unknown>> {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  time: string;
  datacontenttype?: string;
  vaultid?: string;
  data: D;
}

/** One message of the live feed: the event and its cursor (store it to resume after it). */
export interface FeedMessage {
  cursor: string;
  type: string;
  event: CloudEvent;
}

export interface FollowOptions {
  /** Resume after this cursor (a message's `cursor`, or a page's `nextCursor`); default: the oldest retained event. */
  lastEventId?: string;
  /** Stops following: the loop ends without an error. */
  signal?: AbortSignal;
  /** Called each time the stream is (re)opened, with the cursor it resumes after. */
  onOpen?: (lastEventId: string | undefined) => void;
}

/**
 * The vault's change feed as Server-Sent Events, for ever: every message once, in feed order.
 * A dropped stream (the server restarted, a proxy cut it, the client read too slowly) is opened
 * again with `Last-Event-ID` set to the last message received, after a full-jitter backoff; a 429
 * (stream caps) waits its `Retry-After` (the transport's policy). A cursor the feed no longer
 * holds ends the loop with {@link FeedExpiredError}.
 */
export async function* followFeed(
  transport: Transport,
  url: string,
  options: FollowOptions = {},
): AsyncGenerator<FeedMessage, void, undefined> {
  const { signal } = options;
  let last = options.lastEventId;
  let failures = 0;
  while (!signal?.aborted) {
    options.onOpen?.(last);
    let response: Response;
    try {
      response = await transport.send(url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', ...(last ? { 'last-event-id': last } : {}) },
        signal,
      });
    } catch (e) {
      if (signal?.aborted) return;
      if (++failures >= transport.retry.maxAttempts * 4) throw e;
      await pause(failures, transport.retry, signal);
      continue;
    }
    if (response.status === 410) {
      const e = await errorFromResponse(response);
      throw new FeedExpiredError(e.problem, e.headers);
    }
    if (!response.ok || !response.body) throw await errorFromResponse(response);
    failures = 0;
    try {
      for await (const message of sseMessages(response.body)) {
        if (!message.id) continue;
        last = message.id;
        yield { cursor: message.id, type: message.event ?? 'message', event: JSON.parse(message.data) as CloudEvent };
      }
    } catch {
      if (signal?.aborted) return;
    }
    await pause(++failures, transport.retry, signal);
  }
}

/** Parses a `text/event-stream` body into its messages as they arrive. */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage, void, undefined> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) yield queue.shift() as EventSourceMessage;
  }
}

async function pause(failures: number, retry: RetryOptions, signal?: AbortSignal): Promise<void> {
  await sleep(fullJitterDelay(failures, retry, Math.random), signal).catch(() => undefined);
}
