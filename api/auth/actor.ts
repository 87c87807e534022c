import type { KeyMode, RateLimitTier } from "../../shared/domain.ts";

/** Who is calling: the API key and its workspace, as every service function receives it (one object per cached key, shared by its requests: read-only). */
export interface Actor {
  readonly orgId: string;
  readonly orgSlug: string;
  readonly orgName: string;
  readonly keyId: string;
  /** The key's name: the actor recorded on every audit record. */
  readonly keyName: string;
  readonly keyPrefix: string;
  readonly mode: KeyMode;
  readonly tier: RateLimitTier;
}
