import { use, type Flow } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
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

/**
 * Looks a key up by its SHA-256 through one indexed, prepared query on every request, so a
 * revocation holds from the very next request, in every process. The workspace's identity
 * (id, slug, name) never changes, so it is read once per workspace and kept.
 */
export function createAuthenticator(store: ApiStores["apiKeys"]) {
  const workspaces = new Map<string, { slug: string; name: string }>();

  return function* authenticate(header: string | null): Flow<Actor> {
    const key = parseAuthorization(header);
    const found = KEY_PATTERN.test(key) ? yield* use(store.byHash(hashApiKey(key))) : null;
    if (!found) throw new DomainError("invalid_api_key", `Invalid API key provided: ${key.slice(0, 12)}…`);
    if (found.revokedAt !== null) {
      throw new DomainError("api_key_revoked", `The API key ${found.keyPrefix}… has been revoked.`);
    }
    let workspace = workspaces.get(found.orgId);
    if (!workspace) {
      workspace = (yield* use(store.workspace(found.orgId)))!;
      workspaces.set(found.orgId, workspace);
    }
    return {
      orgId: found.orgId,
      orgSlug: workspace.slug,
      orgName: workspace.name,
      keyId: found.keyId,
      keyName: found.keyName,
      keyPrefix: found.keyPrefix,
      mode: found.mode,
      tier: found.tier,
    };
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
