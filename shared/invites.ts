import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "./clock.ts";
import type { Database } from "./db/database.ts";
import { use, type Flow } from "./db/flow.ts";
import type { UserRow } from "./db/schema.ts";
import { OperatorError, storeOf } from "./workspaces.ts";

export const INVITE_LIFETIME_MICROS = 24 * 3600 * 1_000_000;

/** 32 random bytes, URL-safe: for invite links and session cookies. */
export const randomToken = () => randomBytes(32).toString("base64url");

/** Tokens are random, so a plain SHA-256 is a sound lookup hash (as for API keys). */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export const inviteUrl = (publicUrl: string, token: string) => `${publicUrl.replace(/\/+$/, "")}/admin/invite/${token}`;

/**
 * A one-time link to the page where an administrator sets their password, valid 24 hours.
 * Any earlier unused link of the same user stops working. Only the token's hash is stored.
 */
export function* issueInvite(database: Database, clock: Clock, user: Pick<UserRow, "id" | "orgId" | "role">, publicUrl: string): Flow<{ url: string; expiresAt: number }> {
  if (user.role !== "admin") throw new OperatorError("Only administrators sign in: give the user --role admin first.");
  const token = randomToken();
  const now = clock.nowMicros();
  yield* storeOf(database).replaceInvite({ tokenHash: hashToken(token), userId: user.id, orgId: user.orgId, createdAt: now, expiresAt: now + INVITE_LIFETIME_MICROS, usedAt: null });
  return { url: inviteUrl(publicUrl, token), expiresAt: now + INVITE_LIFETIME_MICROS };
}
