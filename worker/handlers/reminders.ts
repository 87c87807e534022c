import { run, type Flow } from "../../shared/db/flow.ts";
import type { Mailer } from "../mailer.ts";
import type { Waiting } from "../outbound.store.ts";
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
export function createReminderScan(deps: Pick<OutboundDeps, "database" | "stores" | "clock">) {
  const { database } = deps;
  const store = deps.stores.outbound;
  const outbox = deps.stores.outbox;

  /** The periods due and not yet marked (a flow: synchronous on SQLite, as before). */
  function* dueAt(now: number): Flow<(Waiting & { period: number })[]> {
    const due: (Waiting & { period: number })[] = [];
    for (const o of yield* store.waiting()) {
      const period = Math.floor((now - o.since) / (o.frequencyDays * DAY_MICROS));
      if (period >= 1 && !(yield* store.periodMarked(o.id, period))) due.push({ ...o, period });
    }
    return due;
  }

  return async function scan(): Promise<{ queued: number }> {
    const now = deps.clock.nowMicros();
    const due = await run(dueAt(now));
    const payload = (o: (typeof due)[number]) => ({ org_id: o.orgId, onboarding_id: o.id, customer_id: o.customerId, period: o.period, at: now });
    await run(
      database.transaction(function* () {
        for (const o of due) {
          // Another scan may have marked this period since the read: then it queued it too.
          if (!(yield* store.markPeriod(o.id, o.period, now))) continue;
          if (o.email) yield* outbox.add(o.orgId, "outbound", "reminder.email", payload(o), now);
          if (o.slack) yield* outbox.add(o.orgId, "outbound", "reminder.slack", payload(o), now);
        }
      }),
    );
    return { queued: due.length };
  };
}

export function reminderHandlers(deps: OutboundDeps & { mailer: Mailer }): Pick<QueueHandlers<"outbound">, "reminder.email" | "reminder.slack"> {
  const { deliveries, lookups } = deps;
  const stillWaiting = async (onboardingId: string) => {
    const onboarding = await run(lookups.onboarding(onboardingId));
    return onboarding && !onboarding.deleted && onboarding.waitingOnCustomer && onboarding.lastChangedMode === "live" ? onboarding : null;
  };

  return {
    "reminder.email": (p, job) =>
      deliveries.run(job, { orgId: p.org_id, onboardingId: p.onboarding_id, kind: "reminder.email", target: null }, async (attempt) => {
        const onboarding = await stillWaiting(p.onboarding_id);
        if (!onboarding) return { status: "skipped", detail: "no longer waiting on the customer" };
        const contact = await run(lookups.primaryContact(p.customer_id));
        if (!contact?.email) return { status: "skipped", detail: "the customer has no primary contact with an e-mail address" };
        await attempt.sending();
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
        const onboarding = await stillWaiting(p.onboarding_id);
        if (!onboarding) return { status: "skipped", detail: "no longer waiting on the customer" };
        const csmId = await run(lookups.csmOf(p.onboarding_id));
        if (csmId === null) return { status: "skipped", detail: "no CSM assigned" };
        const slackUserId = await csmSlackUser(lookups, p.org_id, csmId);
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
