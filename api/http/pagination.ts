import { Type, type TSchema } from "@sinclair/typebox";
import { formatMicros, parseDateTimeMicros } from "../../shared/clock.ts";
import { DateTime, Nullable } from "./schema-kit.ts";

export const PAGE_LIMIT_DEFAULT = 20;

/** Query parameters every list endpoint shares. */
export const pageQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: PAGE_LIMIT_DEFAULT, description: "Page size, 1 to 100." }),
  ),
  cursor: Type.Optional(
    DateTime({
      description:
        "The `next_cursor` of the previous page: returns records created strictly before this instant.",
    }),
  ),
};

export const ListOf = <T extends TSchema>(item: T, id: string) =>
  Type.Object(
    {
      object: Type.Literal("list"),
      data: Type.Array(item),
      has_more: Type.Boolean({ description: "False on the last page; authoritative." }),
      next_cursor: Nullable(DateTime(), {
        description: "Pass as `cursor` for the next page; the `created_at` of the page's last item, null when the page is empty.",
      }),
    },
    { $id: id },
  );

export interface ListPage<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The upper bound of a page read: the cursor, or "anything" when there is none. */
export const cursorMicros = (cursor: string | undefined): number =>
  cursor === undefined ? Number.MAX_SAFE_INTEGER : parseDateTimeMicros(cursor)!;

/** Rows were read with `LIMIT limit + 1`: the extra row only says whether there is more. */
export function pageOf<R>(rows: R[], limit: number): { kept: R[]; has_more: boolean; last: R | undefined } {
  const has_more = rows.length > limit;
  const kept = has_more ? rows.slice(0, limit) : rows;
  return { kept, has_more, last: kept[kept.length - 1] };
}

export function toPage<R extends { createdAt: number }, T>(rows: R[], limit: number, toResource: (row: R) => T): ListPage<T> {
  const { kept, has_more, last } = pageOf(rows, limit);
  return {
    object: "list",
    data: kept.map(toResource),
    has_more,
    next_cursor: last ? formatMicros(last.createdAt) : null,
  };
}

/**
 * `toPage` written as JSON from its items' texts (api/http/rendered.ts), for a page read with
 * `pageOf`: the same text as `JSON.stringify` of `toPage`'s object, fields in the same order.
 */
export function pageText(items: readonly string[], { has_more, last }: { has_more: boolean; last: { createdAt: number } | undefined }): string {
  const next_cursor = last ? JSON.stringify(formatMicros(last.createdAt)) : "null";
  return `{"object":"list","data":[${items.join(",")}],"has_more":${has_more},"next_cursor":${next_cursor}}`;
}
