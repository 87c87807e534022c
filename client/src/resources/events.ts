import { backoffMs, sleep } from "../backoff.js";
import { Paginated } from "../pagination.js";
import { isRetryable, retryDelayMs, type RequestOptions, type Transport } from "../transport.js";
import type { Event, EventCursor, EventList, EventListParams } from "../types.js";
import { segment } from "./path.js";

export interface FollowOptions {
  /** Where to start: a `next_cursor` or `events.cursor()`. Omitted: the oldest retained event, as the API does. */
  after?: string;
  /** Ends the iteration (quietly: the `for await` loop simply finishes) when it aborts. */
  signal?: AbortSignal;
  /** Only these types or families (`onboarding.*`); a follower's position still moves past the others. */
  types?: string | readonly string[];
  /** Only events of this record (its `id`). */
  objectId?: string;
  /** Events per request, 1–100 (default 100). */
  limit?: number;
  /** How long to wait before asking again once the feed is read to its end (default 5000 ms). */
  pollIntervalMs?: number;
  /** The longest pause between tries while the service cannot be reached (default 5000 ms). */
  maxBackoffMs?: number;
  /** Told of each failure it will retry (the service away, 429, 5xx), with the pause before the next try. */
  onRetry?: (error: Error, delayMs: number) => void;
}

/**
 * The change feed, followed: an async iterable of events that never ends on its own. Its
 * `cursor` is where to resume so that nothing yielded so far is missed: it moves to a page's
 * `next_cursor` as the page's last event is yielded, so store it after handling an event and a
 * restart (`follow({ after: stored })`) sees again at most the rest of one page, never less.
 * Iterate it once: a second loop over the same feed would share (and move) its cursor.
 */
export class EventFeed implements AsyncIterable<Event> {
  /** Where to resume; undefined until the first page when `after` was not given. */
  cursor: string | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: FollowOptions,
  ) {
    this.cursor = options.after;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Event, void, undefined> {
    const { signal, types, objectId, limit = 100, pollIntervalMs = 5000, maxBackoffMs = 5000, onRetry } = this.options;
    let failures = 0;
    while (!signal?.aborted) {
      let page: EventList;
      try {
        // Retries are this loop's: it waits as long as it takes, never giving up.
        page = await this.transport.request<EventList>(
          { method: "GET", path: "/api/v1/events", query: { after: this.cursor, limit, type: types, object_id: objectId } },
          { signal, maxRetries: 0 },
        );
        failures = 0;
      } catch (error) {
        if (signal?.aborted) return;
        // 410 `cursor_expired`, a revoked key, a bad filter: waiting would not help.
        if (!isRetryable(error)) throw error;
        const delay = retryDelayMs(error, failures, maxBackoffMs) ?? backoffMs(failures, maxBackoffMs);
        failures++;
        onRetry?.(error, delay);
        if (!(await pause(delay, signal))) return;
        continue;
      }
      const events = page.data as Event[];
      if (events.length === 0) this.cursor = page.next_cursor;
      for (const [i, event] of events.entries()) {
        if (i === events.length - 1) this.cursor = page.next_cursor;
        yield event;
        if (signal?.aborted) return;
      }
      if (!page.has_more && !(await pause(pollIntervalMs, signal))) return;
    }
  }
}

/** Sleeps; false when the signal aborted meanwhile. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await sleep(ms, signal);
    return true;
  } catch (error) {
    if (signal?.aborted) return false;
    throw error;
  }
}

/** `/api/v1/events`: the change feed, oldest first. */
export class Events {
  constructor(private readonly transport: Transport) {}

  retrieve(id: string, options?: RequestOptions): Promise<Event> {
    return this.transport.request({ method: "GET", path: `/api/v1/events/${segment(id)}` }, options);
  }

  /** The position after the newest event now: walk the lists, then `follow({ after: cursor })`. */
  cursor(options?: RequestOptions): Promise<EventCursor> {
    return this.transport.request({ method: "GET", path: "/api/v1/events/cursor" }, options);
  }

  /** The events after `after` up to the end of the feed now, page after page (oldest first). */
  list(params: EventListParams = {}, options?: RequestOptions): Paginated<Event, EventList & { data: Event[] }> {
    const { after, ...query } = params;
    return new Paginated(
      (at) => this.transport.request<EventList & { data: Event[] }>({ method: "GET", path: "/api/v1/events", query: { ...query, after: at } }, options),
      after,
    );
  }

  /**
   * The feed as it grows, forever, until `signal` aborts: every event after `after`, each once,
   * in commit order. While the service is away (connection refused, 5xx, 429) it waits and
   * tries again from the same position, so a restart of the API loses and repeats nothing.
   *
   * ```ts
   * const feed = client.events.follow({ after: stored, signal });
   * for await (const event of feed) { apply(event); store(feed.cursor); }
   * ```
   */
  follow(options: FollowOptions = {}): EventFeed {
    return new EventFeed(this.transport, options);
  }
}
