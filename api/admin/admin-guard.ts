import { timingSafeEqual } from "node:crypto";
import { DomainError } from "../../shared/errors.ts";

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Operators present ADMIN_TOKEN as `Bearer <token>` (scrapers, curl) or as the password of
 * HTTP Basic (a browser opening the dashboard). Without a configured token the admin paths
 * do not exist.
 */
export function checkAdminAccess(adminToken: string | null, authorization: string | null): DomainError | null {
  if (adminToken === null) return new DomainError("route_not_found", "The admin surface is off: set ADMIN_TOKEN.");
  if (!authorization) return new DomainError("missing_api_key", "Send the admin token: 'Authorization: Bearer <ADMIN_TOKEN>'.");
  const [scheme, value = ""] = authorization.split(" ", 2);
  let presented = "";
  if (scheme?.toLowerCase() === "bearer") presented = value;
  if (scheme?.toLowerCase() === "basic") presented = Buffer.from(value, "base64").toString("utf8").split(":").slice(1).join(":");
  return same(presented, adminToken) ? null : new DomainError("invalid_api_key", "Invalid admin token.");
}
