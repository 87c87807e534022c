/**
 * The baseline: bare Bun.serve and bun:sqlite prepared statements answering the benchmark's
 * requests on the same tables, with no framework, authentication, validation, limits,
 * idempotency, outbox or queues. What the machine does with nothing in the way.
 * Env: BASELINE_DB (a seeded SQLite file), PORT.
 */
import { Database } from "bun:sqlite";

const db = new Database(process.env.BASELINE_DB!, { strict: true });
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000");

const insert = db.prepare(
  `INSERT INTO onboardings (id, org_id, customer_id, display_id, phase, state, started_at, waiting_on_customer,
     reminder_email, reminder_slack, reminder_frequency_days, created_at, updated_at, phase_entered_at, sla_suspended_micros, last_changed_mode)
   VALUES ($id, $orgId, $customerId, $displayId, 'before_getting_started', 'active', $at, 0, 1, 1, 1, $at, $at, $at, 0, 'live')`,
);
const org = db.prepare<{ org_id: string }, { id: string }>("SELECT org_id FROM customers WHERE id = $id");
const byId = db.prepare("SELECT * FROM onboardings WHERE id = $id");
const page = db.prepare(
  "SELECT * FROM onboardings WHERE org_id = $orgId AND deleted_at IS NULL AND phase = $phase AND created_at < $before ORDER BY created_at DESC LIMIT $limit",
);
const setPhase = db.prepare("UPDATE onboardings SET phase = $phase, updated_at = $at WHERE id = $id");
let displayId = 10_000_000;

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT),
  async fetch(request) {
    const url = new URL(request.url);
    const parts = url.pathname.split("/"); // ["", "api", "v1", "onboardings", id?]
    const id = parts[4];
    if (request.method === "POST") {
      const body = (await request.json()) as { customer_id: string };
      const row = { id: `onb_${crypto.randomUUID()}`, orgId: org.get({ id: body.customer_id })!.org_id, customerId: body.customer_id, displayId: ++displayId, at: Date.now() * 1000 };
      insert.run(row);
      return Response.json(byId.get({ id: row.id }), { status: 201 });
    }
    if (request.method === "PATCH" && id) {
      const body = (await request.json()) as { phase: string };
      setPhase.run({ id, phase: body.phase, at: Date.now() * 1000 });
      return Response.json(byId.get({ id }));
    }
    if (id) return Response.json(byId.get({ id }));
    const rows = page.all({ orgId: url.searchParams.get("org")!, phase: url.searchParams.get("phase")!, before: Number.MAX_SAFE_INTEGER, limit: 21 });
    return Response.json({ object: "list", data: rows.slice(0, 20), has_more: rows.length > 20 });
  },
});
console.log("baseline ready");
