import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Errors, ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { DomainError, type ErrorCode } from "../../shared/errors.ts";
import { FORMAT_MESSAGES } from "./schema-kit.ts";

/** A compiled check that turns the first failure into the contract's error. */
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

function nonNullMember(schema: TSchema): TSchema | undefined {
  if (!Array.isArray(schema.anyOf) || schema.anyOf.length !== 2) return undefined;
  const others = (schema.anyOf as TSchema[]).filter((s) => s.type !== "null");
  return others.length === 1 ? others[0] : undefined;
}

function typeName(schema: TSchema): string {
  if (Array.isArray(schema.anyOf)) {
    return schema.anyOf.map((s: TSchema) => typeName(s)).join(" or ");
  }
  return schema.type === "integer" ? "an integer" : schema.type === "object" ? "an object" : schema.type === "array" ? "an array" : `a ${String(schema.type)}`;
}

/** Maps one TypeBox failure to the contract's code, field and message. */
export function toDomainError(error: ValueError, root: unknown, where: "body" | "query" | "path"): DomainError {
  const field = fieldOf(error.path) || where;
  const schema = error.schema as TSchema & Record<string, any>;
  // `X | null` given a non-null value: the useful failure is X's own (a bad e-mail, say).
  const inner = nonNullMember(schema);
  if (error.type === ValueErrorType.Union && inner && error.value !== null) {
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
