/**
 * Every list of the API is paged by a cursor: pass the page's `next_cursor` back and stop
 * when `has_more` is false. A `Paginated` does that lazily: nothing is requested until it is
 * iterated, and each page only when the previous one is used up.
 */
export interface Page<Item> {
    data: Item[];
    has_more: boolean;
    next_cursor: string | null;
}
export declare class Paginated<Item, P extends Page<Item> = Page<Item>> implements AsyncIterable<Item> {
    private readonly fetchPage;
    private readonly firstCursor?;
    /** @param fetchPage reads the page after `cursor` (the first page when undefined). */
    constructor(fetchPage: (cursor: string | undefined) => Promise<P>, firstCursor?: string | undefined);
    /** Every page, in order: for code that stores `next_cursor` as it goes. */
    pages(): AsyncGenerator<P, void, undefined>;
    [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined>;
    /** Every item of every page in one array: for lists known to be short. */
    toArray(): Promise<Item[]>;
}
