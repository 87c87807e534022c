import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Errors, ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { DomainError, type ErrorCode } from "../../shared/errors.ts";
import { FORMAT_MESSAGES } from "./schema-kit.ts";

/** A compiled check that turns the first failure into the documented error. */
export interface Validator<T> {
  (value: unknown): T;
}

const TOO_SMALL = new Set([
  ValueErrorType.StringMinLength,
  ValueErrorType.IntegerMinimum,
  ValueErrorType.NumberMinimum,
  ValueErrorType.IntegerExclusiveMinimum,
  ValueErrorType.NumberExclusiveMinimum,
  ValueErrorType.ArrayMinItems,
  ValueErrorType.ObjectMinProperties,
]);
const TOO_BIG = new Set([
  ValueErrorType.StringMaxLength,
  ValueErrorType.IntegerMaximum,
  ValueErrorType.NumberMaximum,
  ValueErrorType.IntegerExclusiveMaximum,
  ValueErrorType.NumberExclusiveMaximum,
  ValueErrorType.ArrayMaxItems,
  ValueErrorType.ObjectMaxProperties,
]);

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const part of pointer.split("/").slice(1)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return node;
}

const fieldOf = (pointer: string) =>
  pointer.split("/").slice(1).map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~")).join(".");

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" ? "number" : typeof value;
}

function memberForValue(schema: TSchema, value: unknown): TSchema | undefined {
  if (!Array.isArray(schema.anyOf)) return undefined;
  const type = jsonType(value);
  const matching = (schema.anyOf as TSchema[]).filter((member) =>
    type === "number" ? member.type === "number" || member.type === "integer" : member.type === type,
  );
  return matching.length === 1 ? matching[0] : undefined;
}

function typeName(schema: TSchema): string {
  if (Array.isArray(schema.anyOf)) {
    return schema.anyOf.map((s: TSchema) => typeName(s)).join(" or ");
  }
  return schema.type === "integer" ? "an integer" : schema.type === "object" ? "an object" : schema.type === "array" ? "an array" : `a ${String(schema.type)}`;
}

/** Maps one TypeBox failure to the documented code, field and message. */
export function toDomainError(error: ValueError, root: unknown, where: "body" | "query" | "path"): DomainError {
  const field = fieldOf(error.path) || where;
  const schema = error.schema as TSchema & Record<string, any>;
  // A union whose one member has the value's JSON type (`string | null` given a string,
  // `string | integer` given a number): that member's own failure is the useful one.
  const inner = error.type === ValueErrorType.Union ? memberForValue(schema, error.value) : undefined;
  if (inner) {
    const innerError = Errors(inner, error.value).First();
    if (innerError) return toDomainError({ ...innerError, path: error.path + innerError.path }, root, where);
  }
  let code: ErrorCode;
  let message: string;
  if (error.type === ValueErrorType.ObjectRequiredProperty || (valueAt(root, error.path) === undefined && error.path !== "")) {
    code = "missing_field";
    message = `Missing required ${where === "query" ? "parameter" : "field"} '${field}'.`;
  } else if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    code = "unknown_field";
    message = `Unknown ${where === "query" ? "parameter" : "field"} '${field}'.`;
  } else if (error.type === ValueErrorType.StringFormat || error.type === ValueErrorType.StringFormatUnknown) {
    code = "invalid_string";
    message = FORMAT_MESSAGES[schema.format] ?? `Invalid ${schema.format}`;
  } else if (error.type === ValueErrorType.StringPattern) {
    code = "invalid_string";
    message = schema.description ? `'${field}' must be ${schema.description}` : `'${field}' has an invalid format.`;
  } else if (Array.isArray(schema.enum)) {
    code = "invalid_enum_value";
    message = `'${field}' must be one of: ${schema.enum.join(", ")}.`;
  } else if (TOO_SMALL.has(error.type)) {
    code = "too_small";
    message = `'${field}' is too small: ${error.message.toLowerCase()}.`;
  } else if (TOO_BIG.has(error.type)) {
    code = "too_big";
    message = `'${field}' is too big: ${error.message.toLowerCase()}.`;
  } else {
    code = "invalid_type";
    message = error.path === "" ? `The ${where} must be ${typeName(schema)}.` : `'${field}' must be ${typeName(schema)}.`;
  }
  return new DomainError(code, message, field);
}

/**
 * Compiles a schema once; the check runs on every request, the error walk only on failures.
 */
export function compileValidator<T>(schema: TSchema, where: "body" | "query" | "path"): Validator<T> {
  const check: TypeCheck<TSchema> = TypeCompiler.Compile(schema);
  return (value: unknown): T => {
    if (check.Check(value)) return value as T;
    // An unknown field is reported first: it usually explains a "missing" one (a typo).
    const errors = [...check.Errors(value)];
    const first = errors.find((e) => e.type === ValueErrorType.ObjectAdditionalProperties) ?? errors[0];
    throw first ? toDomainError(first, value, where) : new DomainError("invalid_type", `Invalid ${where}.`, where);
  };
}
