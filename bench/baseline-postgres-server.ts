/**
 * The PostgreSQL baseline: bare Bun.serve and Bun's SQL client answering the benchmark's
 * requests on the same tables, with no framework, authentication, validation, limits,
 * idempotency, outbox or queues. Env: BASELINE_DB (a PostgreSQL URL, seeded), PORT.
 */
import { SQL } from "bun";

const sql = new SQL({ url: process.env.BASELINE_DB!, max: 10 });
let displayId = 10_000_000;

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT),
  async fetch(request) {
    const url = new URL(request.url);
    const id = url.pathname.split("/")[4]; // ["", "api", "v1", "onboardings", id?]
    const at = Date.now() * 1000;
    if (request.method === "POST") {
      const body = (await request.json()) as { customer_id: string };
      const [row] = await sql`
        INSERT INTO onboardings (id, org_id, customer_id, display_id, phase, state, started_at, waiting_on_customer,
          reminder_email, reminder_slack, reminder_frequency_days, created_at, updated_at, phase_entered_at, sla_suspended_micros, last_changed_mode)
        SELECT ${`onb_${crypto.randomUUID()}`}, org_id, id, ${++displayId}, 'before_getting_started', 'active', ${at}, false, true, true, 1, ${at}, ${at}, ${at}, 0, 'live'
        FROM customers WHERE id = ${body.customer_id}
        RETURNING *`;
      return Response.json(row, { status: 201 });
    }
    if (request.method === "PATCH" && id) {
      const body = (await request.json()) as { phase: string };
      const [row] = await sql`UPDATE onboardings SET phase = ${body.phase}, updated_at = ${at} WHERE id = ${id} RETURNING *`;
      return Response.json(row);
    }
    if (id) {
      const [row] = await sql`SELECT * FROM onboardings WHERE id = ${id}`;
      return row ? Response.json(row) : Response.json({ error: "not found" }, { status: 404 });
    }
    const rows = await sql`
      SELECT * FROM onboardings WHERE org_id = ${url.searchParams.get("org")!} AND deleted_at IS NULL AND phase = ${url.searchParams.get("phase")!}
        AND created_at < ${Number.MAX_SAFE_INTEGER} ORDER BY created_at DESC LIMIT 21`;
    return Response.json({ object: "list", data: rows.slice(0, 20), has_more: rows.length > 20 });
  },
});
console.log("baseline ready");
