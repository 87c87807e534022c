import { Elysia } from "elysia";
import type { Queues } from "../../shared/jobs/queues.ts";

type Handle = (request: Request) => Promise<Response>;

/** The methods Bull Board's pages and API answer (its routes use GET, PUT, POST and PATCH). */
const DASHBOARD_METHODS = ["GET", "PUT", "POST", "PATCH"] as const;

/**
 * Bull Board over the queues at /admin/queues (guarded by the app's admin check), loaded by its
 * first request. Only an operator opens it, and loaded at start it held 10–30 MB of every API
 * process's memory, the processes that never serve it included: resident 202–212 MB against
 * 221–232 MB after the same read load, where the memory target is 250 MB (bench/RESULTS.md, #26's
 * twenty-seventh pass). A load that fails is tried again by the next request.
 */
export function queueDashboard(queues: Queues) {
  let board: Promise<Handle> | undefined;
  async function load(): Promise<Handle> {
    const [{ createBullBoard }, { BullMQAdapter }, { ElysiaAdapter }] = await Promise.all([
      import("@bull-board/api"),
      import("@bull-board/api/bullMQAdapter"),
      import("@bull-board/elysia"),
    ]);
    const serverAdapter = new ElysiaAdapter("/admin/queues");
    createBullBoard({ queues: Object.values(queues).map((q) => new BullMQAdapter(q)), serverAdapter });
    const dashboard = new Elysia().use(await serverAdapter.registerPlugin());
    return (request) => dashboard.handle(request);
  }
  const forward = async ({ request }: { request: Request }) => {
    board ??= load().catch((error: unknown) => {
      board = undefined;
      throw error;
    });
    return (await board)(request);
  };
  // By method, not `.all`: a route of the request's own method wins over one for any method, so
  // the admin area's `GET /admin/*` (its 404 page) would otherwise answer the dashboard's pages.
  const routes = new Elysia();
  for (const method of DASHBOARD_METHODS) routes.route(method, "/admin/queues", forward).route(method, "/admin/queues/*", forward);
  return routes;
}
