import { backoffMs, sleep } from "../backoff.js";
import { Paginated } from "../pagination.js";
import { isRetryable, retryDelayMs } from "../transport.js";
import { segment } from "./path.js";
/**
 * The change feed, followed: an async iterable of events that never ends on its own. Its
 * `cursor` is where to resume so that nothing yielded so far is missed: it moves to a page's
 * `next_cursor` as the page's last event is yielded, so store it after handling an event and a
 * restart (`follow({ after: stored })`) sees again at most the rest of one page, never less.
 * Iterate it once: a second loop over the same feed would share (and move) its cursor.
 */
export class EventFeed {
    transport;
    options;
    /** Where to resume; undefined until the first page when `after` was not given. */
    cursor;
    constructor(transport, options) {
        this.transport = transport;
        this.options = options;
        this.cursor = options.after;
    }
    async *[Symbol.asyncIterator]() {
        const { signal, types, objectId, limit = 100, pollIntervalMs = 5000, maxBackoffMs = 5000, onRetry } = this.options;
        let failures = 0;
        while (!signal?.aborted) {
            let page;
            try {
                // Retries are this loop's: it waits as long as it takes, never giving up.
                page = await this.transport.request({ method: "GET", path: "/api/v1/events", query: { after: this.cursor, limit, type: types, object_id: objectId } }, { signal, maxRetries: 0 });
                failures = 0;
            }
            catch (error) {
                if (signal?.aborted)
                    return;
                // 410 `cursor_expired`, a revoked key, a bad filter: waiting would not help.
                if (!isRetryable(error))
                    throw error;
                const delay = retryDelayMs(error, failures, maxBackoffMs) ?? backoffMs(failures, maxBackoffMs);
                failures++;
                onRetry?.(error, delay);
                if (!(await pause(delay, signal)))
                    return;
                continue;
            }
            const events = page.data;
            if (events.length === 0)
                this.cursor = page.next_cursor;
            for (const [i, event] of events.entries()) {
                if (i === events.length - 1)
                    this.cursor = page.next_cursor;
                yield event;
                if (signal?.aborted)
                    return;
            }
            if (!page.has_more && !(await pause(pollIntervalMs, signal)))
                return;
        }
    }
}
/** Sleeps; false when the signal aborted meanwhile. */
async function pause(ms, signal) {
    try {
        await sleep(ms, signal);
        return true;
    }
    catch (error) {
        if (signal?.aborted)
            return false;
        throw error;
    }
}
/** `/api/v1/events`: the change feed, oldest first. */
export class Events {
    transport;
    constructor(transport) {
        this.transport = transport;
    }
    retrieve(id, options) {
        return this.transport.request({ method: "GET", path: `/api/v1/events/${segment(id)}` }, options);
    }
    /** The position after the newest event now: walk the lists, then `follow({ after: cursor })`. */
    cursor(options) {
        return this.transport.request({ method: "GET", path: "/api/v1/events/cursor" }, options);
    }
    /** The events after `after` up to the end of the feed now, page after page (oldest first). */
    list(params = {}, options) {
        const { after, ...query } = params;
        return new Paginated((at) => this.transport.request({ method: "GET", path: "/api/v1/events", query: { ...query, after: at } }, options), after);
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
    follow(options = {}) {
        return new EventFeed(this.transport, options);
    }
}
