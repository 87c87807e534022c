import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ElysiaAdapter } from "@bull-board/elysia";
import type { Queues } from "../../shared/jobs/queues.ts";

/** Bull Board over both queues at /admin/queues (guarded by the app's admin check). */
export function queueDashboard(queues: Queues) {
  const serverAdapter = new ElysiaAdapter("/admin/queues");
  createBullBoard({ queues: Object.values(queues).map((q) => new BullMQAdapter(q)), serverAdapter });
  return serverAdapter.registerPlugin();
}
