import { Type } from "@sinclair/typebox";
import { KEY_MODES, RATE_LIMIT_TIERS } from "../../shared/domain.ts";
import { StringEnum } from "../http/schema-kit.ts";

const mode = StringEnum(KEY_MODES, { description: "`test` keys change data but never trigger outbound effects." });

export const Me = Type.Object(
  {
    object: Type.Literal("me"),
    api_key: Type.Object({
      id: Type.String(),
      name: Type.String(),
      prefix: Type.String({ description: "The key's first 12 characters; safe to log." }),
      scopes: Type.Array(Type.String()),
      rate_limit_tier: StringEnum(RATE_LIMIT_TIERS),
      mode,
    }),
    organization: Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }),
    key_name: Type.String(),
    key_prefix: Type.String(),
    org_id: Type.String(),
    org_slug: Type.String(),
    mode,
  },
  { $id: "Me", description: "The calling key and its workspace, nested (`api_key`, `organization`) and flat (`key_name`, `org_id`, …), so clients written for either shape find what they read." },
);

export const Health = Type.Object({ status: Type.Literal("ok") }, { $id: "Health" });

const check = StringEnum(["ok", "error"]);
export const Readiness = Type.Object(
  {
    status: StringEnum(["ready", "unavailable"]),
    checks: Type.Object({
      database: StringEnum(["ok", "error", "full"], { description: "`full` while the database refuses writes for want of space (within the last 10 s)." }),
      redis: check,
    }),
    rate_limiter: StringEnum(["redis", "per_process"], {
      description: "`per_process` while Redis is unreachable: each API process then limits on its own.",
    }),
  },
  { $id: "Readiness" },
);

export const OpenApiDocument = Type.Object({}, { additionalProperties: true, $id: "OpenApiDocument", description: "This document." });
