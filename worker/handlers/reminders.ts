import { writeTransaction } from "../../shared/db/client.ts";
import { createOutboxWriter } from "../../shared/db/outbox-writer.store.ts";
import type { Mailer } from "../mailer.ts";
import { createOutboundStore } from "../outbound.store.ts";
import { csmSlackUser, type OutboundDeps } from "../outbound/helpers.ts";
import { directMessageOutcome } from "../slack.ts";
import type { QueueHandlers } from "./types.ts";

const DAY_MICROS = 86_400 * 1_000_000;


/**
 * Reminders while an onboarding waits on its customer: one per `reminder_frequency_days`
 * of waiting (period 1 after the first interval), by e-mail to the primary contact and by
 * Slack to the CSM, as the onboarding's flags say. Records last changed by a test key get
 * none. A due period's reminders are written to the outbox in the same transaction that
 * marks the period, so a period is sent once however often scans run or crash, and a Redis
 * that loses its data loses no reminder (the relay hands the rows over again).
 */
export function createReminderScan(deps: Pick<OutboundDeps, "db" | "clock">) {
  const store = createOutboundStore(deps.db);
  const outbox = createOutboxWriter(deps.db);

  return async function scan(): Promise<{ queued: number }> {
    const now = deps.clock.nowMicros();
    const due = store
      .waiting()
      .map((o) => ({ ...o, period: Math.floor((now - o.since) / (o.frequencyDays * DAY_MICROS)) }))
      .filter((o) => o.period >= 1 && !store.periodMarked(o.id, o.period));
    const payload = (o: (typeof due)[number]) => ({ org_id: o.orgId, onboarding_id: o.id, customer_id: o.customerId, period: o.period, at: now });
    writeTransaction(deps.db, () => {
      for (const o of due) {
        // Another scan may have marked this period since the read: then it queued it too.
        if (!store.markPeriod(o.id, o.period, now)) continue;
        if (o.email) outbox.add(o.orgId, "outbound", "reminder.email", payload(o), now);
        if (o.slack) outbox.add(o.orgId, "outbound", "reminder.slack", payload(o), now);
      }
    });
    return { queued: due.length };
  };
}

export function reminderHandlers(deps: OutboundDeps & { mailer: Mailer }): Pick<QueueHandlers<"outbound">, "reminder.email" | "reminder.slack"> {
  const { deliveries, lookups } = deps;
  const stillWaiting = (onboardingId: string) => {
    const onboarding = lookups.onboarding(onboardingId);
    return onboarding && !onboarding.deleted && onboarding.waitingOnCustomer && onboarding.lastChangedMode === "live" ? onboarding : null;
  };

  return {
    "reminder.email": (p, job) =>
      deliveries.run(job, { orgId: p.org_id, onboardingId: p.onboarding_id, kind: "reminder.email", target: null }, async (attempt) => {
        const onboarding = stillWaiting(p.onboarding_id);
        if (!onboarding) return { status: "skipped", detail: "no longer waiting on the customer" };
        const contact = lookups.primaryContact(p.customer_id);
        if (!contact?.email) return { status: "skipped", detail: "the customer has no primary contact with an e-mail address" };
        attempt.sending();
        const detail = await deps.mailer.send({
          from: deps.mailFrom,
          to: { name: contact.name, address: contact.email },
          subject: `Reminder: ${onboarding.customerName} onboarding is waiting on you`,
          text: `Hello ${contact.name},\n\nYour onboarding (#${onboarding.displayId}) is waiting on a reply from your side.\n`,
          // The same id on every attempt lets a receiving server discard a duplicate.
          messageId: `<${attempt.deliveryId}@customer-onboarding>`,
        });
        return { status: "sent", detail, target: contact.email };
      }),

    "reminder.slack": (p, job) =>
      deliveries.run(job, { orgId: p.org_id, onboardingId: p.onboarding_id, kind: "reminder.slack", target: null }, async (attempt) => {
        const onboarding = stillWaiting(p.onboarding_id);
        if (!onboarding) return { status: "skipped", detail: "no longer waiting on the customer" };
        const csmId = lookups.csmOf(p.onboarding_id);
        if (csmId === null) return { status: "skipped", detail: "no CSM assigned" };
        const slackUserId = csmSlackUser(lookups, p.org_id, csmId);
        const result = await deps.slack.directMessage({
          orgId: p.org_id,
          slackUserId,
          text: `:hourglass: ${onboarding.customerName} (onboarding #${onboarding.displayId}) has been waiting on the customer for ${p.period} reminder period(s).`,
          deliveryId: attempt.deliveryId,
          earlierSendAt: attempt.earlierSendAt,
          sending: attempt.sending,
        });
        return directMessageOutcome(result, slackUserId);
      }),
  };
}
