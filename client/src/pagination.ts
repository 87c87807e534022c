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

export class Paginated<Item, P extends Page<Item> = Page<Item>> implements AsyncIterable<Item> {
  /** @param fetchPage reads the page after `cursor` (the first page when undefined). */
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<P>,
    private readonly firstCursor?: string,
  ) {}

  /** Every page, in order: for code that stores `next_cursor` as it goes. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let cursor = this.firstCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.has_more || page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page in one array: for lists known to be short. */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
