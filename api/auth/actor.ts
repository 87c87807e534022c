import type { KeyMode, RateLimitTier } from "../../shared/domain.ts";

/** Who is calling: the API key and its workspace, as every service function receives it. */
export interface Actor {
  orgId: string;
  orgSlug: string;
  orgName: string;
  keyId: string;
  /** The key's name: the actor recorded on every audit record. */
  keyName: string;
  keyPrefix: string;
  mode: KeyMode;
  tier: RateLimitTier;
}
