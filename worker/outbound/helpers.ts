/** What the outbound handlers (launch automations, reminders) share: their dependencies and recipients. */
import type { Clock } from "../../shared/clock.ts";
import type { Db } from "../../shared/db/client.ts";
import type { Deliveries } from "../deliveries.ts";
import { PermanentFailure } from "../failures.ts";
import type { Lookups } from "../lookups.store.ts";
import type { SlackGateway } from "../slack.ts";

export interface OutboundDeps {
  db: Db;
  clock: Clock;
  deliveries: Deliveries;
  lookups: Lookups;
  slack: SlackGateway;
  mailFrom: string;
}

/** The Slack user id of an onboarding's CSM, or why there is none. */
export function csmSlackUser(lookups: Lookups, orgId: string, csmId: string): string {
  const user = lookups.user(orgId, csmId);
  if (!user) throw new PermanentFailure(`CSM '${csmId}' is not a user of this workspace`);
  if (!user.slackUserId) throw new PermanentFailure(`CSM ${user.name} (${csmId}) has no Slack user id`);
  return user.slackUserId;
}
