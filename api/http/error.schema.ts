import { Type } from "@sinclair/typebox";
import { ERROR_CODES } from "../../shared/errors.ts";
import { ERROR_TYPES } from "./error-map.ts";
import { StringEnum } from "./schema-kit.ts";

/** The body of every error response; its enums come from the error map. */
export const ErrorObject = Type.Object(
  {
    error: Type.Object({
      type: StringEnum(ERROR_TYPES),
      code: StringEnum(ERROR_CODES),
      message: Type.String(),
      field: Type.Optional(Type.String({ description: "The input at fault, dotted for nested fields." })),
    }),
  },
  { $id: "Error", description: "Every error response has this shape." },
);
