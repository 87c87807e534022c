import { generateApiKey } from "../../shared/api-keys.ts";
import { writeTransaction, type Db } from "../../shared/db/client.ts";
import { PHASES } from "../../shared/domain.ts";
import { newId } from "../../shared/ids.ts";

export interface SeededKey {
  key: string;
  orgId: string;
  customerId: string;
  onboardingIds: string[];
}

const BASE_MICROS = Date.UTC(2026, 0, 1) * 1000;

/**
 * Bulk rows straight through prepared statements (the API would take minutes for a
 * million). Display ids and `created_at` follow the same per-workspace sequence rules, and
 * the sequence rows are set so the API continues them.
 */
export function seedOnboardings(db: Db, orgId: string, customerId: string, count: number): string[] {
  const insert = db.$client.prepare(
    `INSERT INTO onboardings (id, org_id, customer_id, display_id, phase, state, started_at, waiting_on_customer,
       reminder_email, reminder_slack, reminder_frequency_days, created_at, updated_at, phase_entered_at,
       sla_suspended_micros, last_changed_mode)
     VALUES ($id, $orgId, $customerId, $displayId, $phase, 'active', $at, 0, 1, 1, 1, $at, $at, $at, 0, 'live')`,
  );
  const ids: string[] = [];
  const chunk = 50_000;
  for (let start = 0; start < count; start += chunk) {
    writeTransaction(db, () => {
      for (let i = start; i < Math.min(count, start + chunk); i++) {
        const id = newId("onb");
        ids.push(id);
        insert.run({ id, orgId, customerId, displayId: i + 1, phase: PHASES[i % 5]!, at: BASE_MICROS + i });
      }
    });
  }
  db.$client.run(
    `INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES (?, 'onboarding', ?, ?)
     ON CONFLICT DO UPDATE SET last_display_id = excluded.last_display_id, last_created_at = excluded.last_created_at`,
    [orgId, count, BASE_MICROS + count],
  );
  return ids;
}

/**
 * Workspaces, each with one customer, `onboardings` onboardings and `keysPerOrg` paid keys.
 * The keys come back interleaved, workspace by workspace (key i is of workspace i % orgs): a
 * load that takes keys in turn (`pick(keys, n)`) has its concurrent requests spread over every
 * workspace, as many integrations calling at once would. In workspace order, the 32 requests in
 * flight all fell into one workspace and its creates queued on its sequence row.
 */
export function seedWorkspaces(db: Db, options: { orgs: number; keysPerOrg: number; onboardings: number; prefix?: string }): SeededKey[] {
  const byWorkspace: SeededKey[][] = [];
  for (let o = 0; o < options.orgs; o++) {
    const orgId = newId("org");
    const customerId = newId("cus");
    writeTransaction(db, () => {
      db.$client.run("INSERT INTO organizations (id, slug, name, launch_recap_enabled, created_at) VALUES (?, ?, ?, 0, ?)", [
        orgId,
        `${options.prefix ?? "bench"}-${o}`,
        `Bench ${o}`,
        BASE_MICROS,
      ]);
      db.$client.run(
        `INSERT INTO customers (id, org_id, display_id, name, slug, status, metadata, created_at, updated_at)
         VALUES (?, ?, 1, 'Bench customer', 'bench-customer', 'onboarding', '{}', ?, ?)`,
        [customerId, orgId, BASE_MICROS, BASE_MICROS],
      );
      db.$client.run("INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES (?, 'customer', 1, ?)", [orgId, BASE_MICROS]);
    });
    const onboardingIds = seedOnboardings(db, orgId, customerId, options.onboardings);
    const keys: SeededKey[] = [];
    byWorkspace.push(keys);
    writeTransaction(db, () => {
      for (let k = 0; k < options.keysPerOrg; k++) {
        const { key, prefix, hash } = generateApiKey("live");
        db.$client.run(
          "INSERT INTO api_keys (id, org_id, name, prefix, key_hash, mode, rate_limit_tier, created_at) VALUES (?, ?, ?, ?, ?, 'live', 'paid', ?)",
          [newId("key"), orgId, `bench-${k}`, prefix, hash, BASE_MICROS],
        );
        keys.push({ key, orgId, customerId, onboardingIds });
      }
    });
  }
  return Array.from({ length: options.keysPerOrg * options.orgs }, (_, i) => byWorkspace[i % options.orgs]![Math.floor(i / options.orgs)]!);
}
