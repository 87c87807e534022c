import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../shared/db/client.ts";
import { apiKeys, organizations } from "../../shared/db/schema.ts";
import { DomainError } from "../../shared/errors.ts";
import { hashApiKey, KEY_PATTERN } from "../../shared/api-keys.ts";
import type { Actor } from "./actor.ts";

const malformed = (why: string) =>
  new DomainError("malformed_authorization_header", `${why} Send 'Authorization: Bearer <API key>'.`);

/**
 * Extracts the key from an Authorization header. Only the `Bearer` scheme (any letter case)
 * followed by one space and the key is accepted. HTTP itself strips spaces and tabs at the
 * end of a header value before any server sees them (RFC 9110, 5.5); every other white space
 * inside or after the key is refused here.
 */
export function parseAuthorization(header: string | null): string {
  if (header === null || header === "") {
    throw new DomainError("missing_api_key", "No API key provided. Send 'Authorization: Bearer <API key>'.");
  }
  if (!/^bearer /i.test(header)) {
    throw malformed(/^bearer:/i.test(header) ? "'Bearer' must be followed by a space, not a colon." : "The Authorization header must use the Bearer scheme.");
  }
  const key = header.slice(7);
  if (key === "") throw new DomainError("missing_api_key", "No API key provided after 'Bearer '.");
  if (/\s/.test(key)) throw malformed("The API key must not contain or end with white space.");
  return key;
}

/** Looks a key up by its SHA-256 through one indexed, prepared query. */
export function createAuthenticator(db: Db) {
  const byHash = db
    .select({
      keyId: apiKeys.id,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.prefix,
      mode: apiKeys.mode,
      tier: apiKeys.rateLimitTier,
      revokedAt: apiKeys.revokedAt,
      orgId: organizations.id,
      orgSlug: organizations.slug,
      orgName: organizations.name,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.orgId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("hash"))))
    .prepare();

  return function authenticate(header: string | null): Actor {
    const key = parseAuthorization(header);
    const found = KEY_PATTERN.test(key) ? byHash.get({ hash: hashApiKey(key) }) : undefined;
    if (!found) throw new DomainError("invalid_api_key", `Invalid API key provided: ${key.slice(0, 12)}…`);
    if (found.revokedAt !== null) {
      throw new DomainError("api_key_revoked", `The API key ${found.keyPrefix}… has been revoked.`);
    }
    const { revokedAt: _revoked, ...actor } = found;
    return actor;
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
