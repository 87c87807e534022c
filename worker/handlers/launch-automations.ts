import { run } from "../../shared/db/flow.ts";
import { PermanentFailure } from "../failures.ts";
import { composeMessage } from "../mailer.ts";
import { csmSlackUser, type OutboundDeps } from "../outbound/helpers.ts";
import { directMessageOutcome } from "../slack.ts";
import type { QueueHandlers } from "./types.ts";

/**
 * What happens when an onboarding enters `launch` by a live key: a Slack DM to the CSM, a
 * launch entry on the customer's calendar and, where the workspace enabled it, a drafted
 * launch-recap e-mail to the primary contact (stored, not sent).
 */
export function launchHandlers(deps: OutboundDeps): Pick<QueueHandlers<"outbound">, "launch.slack_dm" | "launch.calendar_entry" | "launch.recap_email"> {
  const { deliveries, lookups, slack } = deps;
  const store = deps.stores.outbound;
  const context = async (onboardingId: string) => {
    const found = await run(lookups.onboarding(onboardingId));
    if (!found) throw new PermanentFailure(`onboarding ${onboardingId} does not exist`);
    return found;
  };

  return {
    "launch.slack_dm": (p, job) =>
      deliveries.run(job, { orgId: p.org_id, onboardingId: p.onboarding_id, kind: "launch.slack_dm", target: p.csm_id }, async (attempt) => {
        if (p.csm_id === null) return { status: "skipped", detail: "no CSM assigned" };
        const slackUserId = await csmSlackUser(lookups, p.org_id, p.csm_id);
        const onboarding = await context(p.onboarding_id);
        const result = await slack.directMessage({
          orgId: p.org_id,
          slackUserId,
          text: `:rocket: ${onboarding.customerName} is live: onboarding #${onboarding.displayId} entered launch (by ${p.actor}).`,
          deliveryId: attempt.deliveryId,
          earlierSendAt: attempt.earlierSendAt,
          sending: attempt.sending,
        });
        return directMessageOutcome(result, slackUserId);
      }),

    "launch.calendar_entry": (p, job) =>
      deliveries.run(job, { orgId: p.org_id, onboardingId: p.onboarding_id, kind: "launch.calendar_entry", target: p.customer_id }, async () => {
        const onboarding = await context(p.onboarding_id);
        await run(store.calendarEntry({
          source: job.id!,
          orgId: p.org_id,
          customerId: p.customer_id,
          onboardingId: p.onboarding_id,
          title: `Launch: ${onboarding.customerName} (onboarding #${onboarding.displayId})`,
          at: p.at,
        }));
        return { status: "sent", detail: "calendar entry created" };
      }),

    "launch.recap_email": (p, job) =>
      deliveries.run(job, { orgId: p.org_id, onboardingId: p.onboarding_id, kind: "launch.recap_email", target: null }, async () => {
        const contact = await run(lookups.primaryContact(p.customer_id));
        if (!contact?.email) return { status: "skipped", detail: "the customer has no primary contact with an e-mail address" };
        const onboarding = await context(p.onboarding_id);
        const subject = `Launch recap: ${onboarding.customerName}`;
        const raw = await composeMessage({
          from: deps.mailFrom,
          to: { name: contact.name, address: contact.email },
          subject,
          text: `Hello ${contact.name},\n\n${onboarding.customerName} is live. Here is a recap of the onboarding (#${onboarding.displayId}) so far.\n\n`,
          headers: { "X-Onboarding-Id": p.onboarding_id },
        });
        await run(store.emailDraft({ source: job.id!, orgId: p.org_id, onboardingId: p.onboarding_id, to: contact.email, subject, raw, now: deps.clock.nowMicros() }));
        return { status: "sent", detail: "draft stored (not sent)", target: contact.email };
      }),
  };
}
