import { run, type Flow, type MaybePromise } from "../../shared/db/flow.ts";
import type { ApiStores } from "../stores.ts";
import { DomainError } from "../../shared/errors.ts";
import { hashApiKey, KEY_PATTERN } from "../../shared/api-keys.ts";
import type { CommitWatch } from "../../shared/db/wal-commits.ts";
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

/** Keys a process keeps (a bound on memory, not a working-set guess: 10,000 keys are ~3 MB). */
const MAX_CACHED_KEYS = 10_000;

type Known = { actor: Actor; revokedPrefix: null } | { actor: null; revokedPrefix: string };

/**
 * A read whose answer is never older than its caller: `fresh()` answers what a read *sent after
 * the call began* found. A plain answer (SQLite, read on the spot) is that already. Promised
 * answers (PostgreSQL) are shared: while one read is out, whoever calls waits for the next one,
 * sent the moment the one out returns, and every such caller gets its answer. A read already
 * out when a caller came may have been answered from before the caller's time, so it is never
 * handed to that caller. Under load one statement serves every request of a round trip instead
 * of one statement each; alone, a caller waits for one read as before.
 *
 * A read out for longer than `staleAfterMs` (its connection stuck) is not waited for: the next
 * read goes out then, so one stuck statement holds up the requests of its own round trip only,
 * not every later one of the process.
 */
export function freshReads<T>(read: () => MaybePromise<T>, staleAfterMs = 250): () => MaybePromise<T> {
  let out: Promise<T> | undefined;
  let sentAt = 0;
  let next: Promise<T> | undefined;
  const ignore = () => {};
  function send(): MaybePromise<T> {
    const answer = read();
    if (!(answer instanceof Promise)) return answer;
    // Registered first, so `out` is cleared before the callers waiting for the next read send it.
    const sent: Promise<T> = answer.finally(() => {
      if (out === sent) out = undefined;
    });
    out = sent;
    sentAt = performance.now();
    return sent;
  }
  return () => {
    if (out === undefined) return send();
    if (next !== undefined) return next;
    const patienceMs = staleAfterMs - (performance.now() - sentAt);
    if (patienceMs <= 0) return send();
    return (next = Promise.race([out.then(ignore, ignore), Bun.sleep(patienceMs)]).then(() => {
      next = undefined;
      return send();
    }));
  };
}

/**
 * Finds the calling key by its SHA-256. Keys already seen are kept in memory by that hash,
 * with the answer (the actor, or "revoked"); every request first learns the one-row
 * `auth_revision`, which triggers bump on any change to a key's identity, and a new revision
 * empties the cache. So a revocation holds from the very next request in every process, as
 * with a lookup per request. The revision a request uses is read after the request arrived
 * (`freshReads`): a revocation committed before then is seen, and on PostgreSQL the requests
 * of one round trip share one read. The workspace's identity (id, slug, name) never changes,
 * so it is read once per workspace and kept.
 *
 * With `commits` (SQLite in WAL mode: the database's `watchCommits`), the revision is read
 * again only once something committed since the last read, which the watch tells from memory:
 * a read-heavy load reads it once per commit of any process instead of once per request, and a
 * revocation is still a commit, seen by the first request after it.
 *
 * The calling key's actor is answered plainly when nothing waits (SQLite, or a key already
 * known), and as a promise otherwise; it throws (or rejects) with the refusal. A key already
 * known under the current revision (nearly every request) is answered by plain code; only a
 * lookup in the database runs as a flow. Timed in place, this did not measurably change the
 * step's cost (bench/RESULTS.md, #26's twenty-seventh pass): it is kept for reading as what it does.
 */
export function createAuthenticator(store: ApiStores["apiKeys"], commits: CommitWatch | null = null) {
  const workspaces = new Map<string, { slug: string; name: string }>();
  const known = new Map<string, Known>();
  let knownAt = -1;
  const readRevision = freshReads(() => run(store.revision()));
  const currentRevision = commits ? revisionSinceCommits(readRevision, commits) : readRevision;

  /** The key's answer under `revision`: kept, or read (and kept, unless a newer revision was seen meanwhile). */
  function identify(key: string, revision: number): MaybePromise<Actor> {
    // Revisions only grow; an older answer arriving late (a stuck read passed over) changes nothing.
    if (revision > knownAt) {
      known.clear();
      knownAt = revision;
    }
    const hash = hashApiKey(key);
    const entry = known.get(hash);
    return entry ? actorOf(entry) : run(lookUp(key, hash, revision));
  }

  function* lookUp(key: string, hash: string, revision: number): Flow<Actor> {
    const found = yield* store.byHash(hash);
    if (!found) throw invalidKey(key);
    let workspace = workspaces.get(found.orgId);
    if (!workspace) {
      workspace = (yield* store.workspace(found.orgId))!;
      workspaces.set(found.orgId, workspace);
    }
    const entry: Known =
      found.revokedAt !== null
        ? { actor: null, revokedPrefix: found.keyPrefix }
        : {
            actor: {
              orgId: found.orgId,
              orgSlug: workspace.slug,
              orgName: workspace.name,
              keyId: found.keyId,
              keyName: found.keyName,
              keyPrefix: found.keyPrefix,
              mode: found.mode,
              tier: found.tier,
            },
            revokedPrefix: null,
          };
    // On PostgreSQL another request may have seen a newer revision meanwhile: what was read
    // under an older one is used for this request only, never kept.
    if (knownAt === revision) {
      known.set(hash, entry);
      if (known.size > MAX_CACHED_KEYS) known.delete(known.keys().next().value!);
    }
    return actorOf(entry);
  }

  return function authenticate(header: string | null): MaybePromise<Actor> {
    const key = parseAuthorization(header);
    if (!KEY_PATTERN.test(key)) throw invalidKey(key);
    const revision = currentRevision();
    return revision instanceof Promise ? revision.then((r) => identify(key, r)) : identify(key, revision);
  };
}

function actorOf(entry: Known): Actor {
  if (entry.actor === null) throw new DomainError("api_key_revoked", `The API key ${entry.revokedPrefix}… has been revoked.`);
  return entry.actor;
}

/**
 * The last revision read, kept while `commits` sees no commit since the mark made before that
 * read. A read that fails leaves nothing kept, so a mark it moved cannot vouch for an older
 * answer. Promised answers (an engine without a watch has none of these) are never kept.
 */
function revisionSinceCommits(read: () => MaybePromise<number>, commits: CommitWatch): () => MaybePromise<number> {
  let kept: number | undefined;
  return () => {
    if (kept !== undefined && !commits.moved()) return kept;
    kept = undefined;
    commits.mark();
    const answer = read();
    if (!(answer instanceof Promise)) kept = answer;
    return answer;
  };
}

const invalidKey = (key: string) => new DomainError("invalid_api_key", `Invalid API key provided: ${key.slice(0, 12)}…`);

export type Authenticate = ReturnType<typeof createAuthenticator>;
