import { Paginated } from "../pagination.js";
import { type RequestOptions, type Transport } from "../transport.js";
import type { Event, EventCursor, EventList, EventListParams } from "../types.js";
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
export declare class EventFeed implements AsyncIterable<Event> {
    private readonly transport;
    private readonly options;
    /** Where to resume; undefined until the first page when `after` was not given. */
    cursor: string | undefined;
    constructor(transport: Transport, options: FollowOptions);
    [Symbol.asyncIterator](): AsyncGenerator<Event, void, undefined>;
}
/** `/api/v1/events`: the change feed, oldest first. */
export declare class Events {
    private readonly transport;
    constructor(transport: Transport);
    retrieve(id: string, options?: RequestOptions): Promise<Event>;
    /** The position after the newest event now: walk the lists, then `follow({ after: cursor })`. */
    cursor(options?: RequestOptions): Promise<EventCursor>;
    /** The events after `after` up to the end of the feed now, page after page (oldest first). */
    list(params?: EventListParams, options?: RequestOptions): Paginated<Event, EventList & {
        data: Event[];
    }>;
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
    follow(options?: FollowOptions): EventFeed;
}
