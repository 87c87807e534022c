export class Paginated {
    fetchPage;
    firstCursor;
    /** @param fetchPage reads the page after `cursor` (the first page when undefined). */
    constructor(fetchPage, firstCursor) {
        this.fetchPage = fetchPage;
        this.firstCursor = firstCursor;
    }
    /** Every page, in order: for code that stores `next_cursor` as it goes. */
    async *pages() {
        let cursor = this.firstCursor;
        for (;;) {
            const page = await this.fetchPage(cursor);
            yield page;
            if (!page.has_more || page.next_cursor === null)
                return;
            cursor = page.next_cursor;
        }
    }
    async *[Symbol.asyncIterator]() {
        for await (const page of this.pages())
            yield* page.data;
    }
    /** Every item of every page in one array: for lists known to be short. */
    async toArray() {
        const items = [];
        for await (const item of this)
            items.push(item);
        return items;
    }
}
