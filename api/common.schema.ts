import { Type, type TSchema } from "@sinclair/typebox";
import { DateTime, Nullable, StringEnum } from "./http/schema-kit.ts";
import { ERROR_CODES } from "../shared/errors.ts";
import { formatMicros, parseDateTimeMicros } from "../shared/clock.ts";

export const ErrorObject = Type.Object(
  {
    error: Type.Object({
      type: StringEnum([
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "rate_limit_error",
        "not_found",
        "conflict",
        "internal_error",
      ]),
      code: StringEnum(ERROR_CODES),
      message: Type.String(),
      field: Type.Optional(Type.String({ description: "The input at fault, dotted for nested fields." })),
    }),
  },
  { $id: "Error", description: "Every error response has this shape." },
);

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

export const Deleted = <K extends string>(object: K, idExample: string) =>
  Type.Object(
    {
      object: Type.Literal(object),
      id: Type.String({ examples: [idExample] }),
      deleted: Type.Literal(true),
    },
    { $id: `Deleted${object[0]!.toUpperCase()}${object.slice(1)}` },
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
export function toPage<R extends { createdAt: number }, T>(rows: R[], limit: number, toResource: (row: R) => T): ListPage<T> {
  const has_more = rows.length > limit;
  const kept = has_more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    object: "list",
    data: kept.map(toResource),
    has_more,
    next_cursor: last ? formatMicros(last.createdAt) : null,
  };
}

export const refParam = (what: string, example: string) =>
  Type.String({
    minLength: 1,
    maxLength: 255,
    description: `The ${what}'s \`id\` or its \`display_id\` (digits only).`,
    examples: [example],
  });
