import { afterEach, describe, expect, test } from "bun:test";
import { OnboardingConnectionError, type Event } from "../../client";
import { waitFor } from "../support/wait.ts";
import { clientOf, restartOnSamePort, startApiProcess } from "./support/service.ts";

/**
 * `events.follow` against real API processes: it yields each change once, in commit order,
 * and keeps going when the API it talks to is killed and another takes its place on the same
 * port, with changes made meanwhile through a third process on the same database.
 */
const processes: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  // The first one owns the database: stopped last, it removes it.
  for (const started of processes.splice(0).reverse()) await started.stop();
});

const nameOf = (event: Event) => (event.data.object as { name?: string }).name;

describe("events.follow", () => {
  test("across a restart of the API: connection refused while it is away, then every event once, none lost, none repeated", async () => {
    const first = await startApiProcess();
    processes.push(first);
    const client = clientOf(first);
    const { cursor } = await client.events.cursor();

    const controller = new AbortController();
    const seen: Event[] = [];
    const retried: Error[] = [];
    const feed = client.events.follow({ after: cursor, signal: controller.signal, types: "customer.*", pollIntervalMs: 100, maxBackoffMs: 400, onRetry: (error) => retried.push(error) });
    const following = (async () => {
      for await (const event of feed) seen.push(event);
    })();

    const names: string[] = [];
    const create = async (via: typeof client, name: string) => {
      names.push(name);
      await via.customers.create({ name });
    };
    for (let i = 0; i < 5; i++) await create(client, `Before ${i}`);
    await waitFor(() => seen.length === 5, "the first five events");

    first.child.kill("SIGKILL");
    await first.child.exited;
    await waitFor(() => retried.length >= 2, "the follower to meet the dead API twice");
    expect(retried.every((e) => e instanceof OnboardingConnectionError && e.code === "connection_failed")).toBe(true);

    // Changes while it is away, through another API process on the same database.
    const beside = { database: first.database, key: first.key, prefix: first.prefix };
    const helper = await startApiProcess({ beside });
    processes.push(helper);
    for (let i = 0; i < 5; i++) await create(clientOf(helper), `Meanwhile ${i}`);

    // The API comes back on the same address; the follower finds it by itself.
    processes.push(await restartOnSamePort(first));
    for (let i = 0; i < 5; i++) await create(client, `After ${i}`);
    await waitFor(() => seen.length >= 15, "all fifteen events", 20_000);
    await Bun.sleep(300); // a few more polls: nothing else may arrive
    controller.abort();
    await following; // the loop ends quietly when the signal aborts

    expect(seen.map(nameOf)).toEqual(names);
    expect(seen.map((e) => e.type)).toEqual(names.map(() => "customer.created"));
    expect(new Set(seen.map((e) => e.id)).size).toBe(15);
    // The feed's cursor is where the walk ended: nothing after it.
    expect(await client.events.list({ after: feed.cursor, type: "customer.*" }).toArray()).toEqual([]);
  });

  test("a follower stopped mid-page resumes from feed.cursor: it may see the rest of a page again, never misses one", async () => {
    const api = await startApiProcess();
    processes.push(api);
    const client = clientOf(api);
    const { cursor } = await client.events.cursor();
    const customer = await client.customers.create({ name: "Resume Co" });
    const onboarding = await client.onboardings.create({ customer_id: customer.id });
    for (const phase of ["program_design", "review", "program_buildout"] as const) await client.onboardings.update(onboarding.id, { phase });
    const all = await client.events.list({ after: cursor }).toArray();
    expect(all).toHaveLength(8); // customer.created, onboarding.created, 3 × (updated, phase_changed)

    // Pages of three: stop after the fourth event (the first of the second page).
    const controller = new AbortController();
    const feed = client.events.follow({ after: cursor, signal: controller.signal, limit: 3, pollIntervalMs: 50 });
    const before: string[] = [];
    let stored: string | undefined;
    for await (const event of feed) {
      before.push(event.id);
      stored = feed.cursor;
      if (before.length === 4) break;
    }
    expect(before).toEqual(all.slice(0, 4).map((e) => e.id));

    const resumed: string[] = [];
    const again = client.events.follow({ after: stored, signal: controller.signal, limit: 3, pollIntervalMs: 50 });
    for await (const event of again) {
      resumed.push(event.id);
      if (resumed.includes(all.at(-1)!.id)) break;
    }
    // Resumed at the start of the second page: the fourth event again, then the rest.
    expect(resumed).toEqual(all.slice(3).map((e) => e.id));
    controller.abort();

    // A family filter.
    const onlyPhases: Event[] = [];
    const filtered = client.events.follow({ after: cursor, types: ["onboarding.phase_changed"], pollIntervalMs: 50 });
    for await (const event of filtered) if (onlyPhases.push(event) === 3) break;
    expect(onlyPhases.map((e) => (e.type === "onboarding.phase_changed" ? e.data.object.phase : null))).toEqual(["program_design", "review", "program_buildout"]);
  });

  test("a cursor the feed refuses ends the iteration with the service's error", async () => {
    const api = await startApiProcess();
    processes.push(api);
    const feed = clientOf(api).events.follow({ after: "not-a-cursor", pollIntervalMs: 50 });
    const error = await (async () => {
      for await (const _ of feed) return null;
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "OnboardingApiError", status: 400, code: "invalid_string", field: "after" });
  });
});
