import { run } from "../../shared/db/flow.ts";
/** What the outbound handlers (launch automations, reminders) share: their dependencies and recipients. */
import type { Clock } from "../../shared/clock.ts";
import type { Database } from "../../shared/db/database.ts";
import type { Deliveries } from "../deliveries.ts";
import { PermanentFailure } from "../failures.ts";
import type { SlackGateway } from "../slack.ts";
import type { WorkerLookups, WorkerStores } from "../stores.ts";

export interface OutboundDeps {
  database: Database;
  stores: WorkerStores;
  clock: Clock;
  deliveries: Deliveries;
  lookups: WorkerLookups;
  slack: SlackGateway;
  mailFrom: string;
}

/** The Slack user id of an onboarding's CSM, or why there is none. */
export async function csmSlackUser(lookups: WorkerLookups, orgId: string, csmId: string): Promise<string> {
  const user = await run(lookups.user(orgId, csmId));
  if (!user) throw new PermanentFailure(`CSM '${csmId}' is not a user of this workspace`);
  if (!user.slackUserId) throw new PermanentFailure(`CSM ${user.name} (${csmId}) has no Slack user id`);
  return user.slackUserId;
}
