import type { Clock } from "../../shared/clock.ts";
import type { Driven } from "../../shared/db/flow.ts";
import { randomToken } from "../../shared/invites.ts";
import type { ApiStores } from "../stores.ts";

const NONCE_LIFETIME_MICROS = 24 * 3600 * 1_000_000;

/**
 * One-time form nonces, for the forms whose answer shows a secret once (a new key, a webhook
 * endpoint, a rotated secret): a resubmission (reload, back button) must neither repeat the
 * action nor show the secret again. The page carries `newNonce()`; the action runs only when
 * `firstSubmission` claims it. Claims live in the database, so every API process agrees.
 */
export function formNonces(store: Driven<Pick<ApiStores["adminArea"], "claimFormNonce" | "purgeFormNonces">>, clock: Clock) {
  return {
    newNonce: randomToken,
    async firstSubmission(form: URLSearchParams): Promise<boolean> {
      await store.purgeFormNonces(clock.nowMicros() - NONCE_LIFETIME_MICROS);
      const nonce = form.get("nonce") ?? "";
      return nonce.length >= 16 && (await store.claimFormNonce(nonce, clock.nowMicros()));
    },
  };
}

export type FormNonces = ReturnType<typeof formNonces>;
