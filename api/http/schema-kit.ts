// Elysia registers its own string formats in TypeBox's global registry when it loads;
// importing it first guarantees our definitions below are the ones in force.
import "elysia";
import { FormatRegistry, Kind, Type, TypeRegistry, type SchemaOptions, type TSchema, type TUnsafe } from "@sinclair/typebox";
import { isDateTime } from "../../shared/clock.ts";
import { EMAIL_PATTERN } from "../../shared/domain.ts";

const HOSTNAME = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

FormatRegistry.Set("date-time", isDateTime);
FormatRegistry.Set("email", (v) => EMAIL_PATTERN.test(v));
FormatRegistry.Set("hostname", (v) => HOSTNAME.test(v));

/** Human wording for format failures, shared by every field of that format. */
export const FORMAT_MESSAGES: Record<string, string> = {
  "date-time": "Invalid datetime",
  email: "Invalid email",
  hostname: "Invalid hostname",
};

// A string enum that documents as `{type: string, enum: [...]}` (what OpenAPI tools and
// client generators read best) instead of TypeBox's `anyOf` of literals.
TypeRegistry.Set<{ enum: readonly string[] }>(
  "StringEnum",
  (schema, value) => typeof value === "string" && schema.enum.includes(value),
);

export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: "StringEnum", type: "string", enum: [...values] });
}

export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) =>
  Type.Union([schema, Type.Null()], options);

export const DateTime = (options: SchemaOptions = {}) =>
  Type.String({ format: "date-time", examples: ["2026-11-22T10:15:30.123456Z"], ...options });

/** Strict object: unknown properties are refused with `unknown_field`. */
export const StrictObject: typeof Type.Object = ((properties: never, options: SchemaOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options })) as typeof Type.Object;

/** A `{…_ref}` path segment: an `id`, or a `display_id` written as digits. */
export const refParam = (what: string, example: string) =>
  Type.String({
    minLength: 1,
    maxLength: 255,
    description: `The ${what}'s \`id\` or its \`display_id\` (digits only).`,
    examples: [example],
  });

/** What DELETE answers. */
export const Deleted = <K extends string>(object: K, idExample: string) =>
  Type.Object(
    {
      object: Type.Literal(object),
      id: Type.String({ examples: [idExample] }),
      deleted: Type.Literal(true),
    },
    { $id: `Deleted${object[0]!.toUpperCase()}${object.slice(1)}` },
  );
