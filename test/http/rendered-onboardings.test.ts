import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Onboarding, OnboardingList } from "../../api/onboardings/onboardings.schema.ts";
import { createTestApp, expectSchema, type TestApp } from "../support/test-app.ts";

/**
 * Lists of onboardings, and the GET of one, answered from texts rendered earlier
 * (api/http/rendered.ts): a page or an onboarding is the same text as before when nothing in it
 * changed, and shows every change the moment it is committed, whoever made it. On both engines
 * (npm test runs this suite on each).
 */
let t: TestApp;
let customer: string;
let made: { id: string; display_id: number }[];
beforeAll(async () => {
  t = await createTestApp();
  customer = (await t.call("POST", "/api/v1/customers", { body: { name: "Listed Ltd" } })).body.id;
  made = [];
  for (let i = 0; i < 5; i++) made.push((await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer, notes: `n${i}` } })).body);
});
afterAll(() => t.close());

const lists = [`/api/v1/onboardings?limit=3`, `/api/v1/onboardings?phase=before_getting_started&limit=10`];
const listOf = (path: string) => t.call("GET", path.replace("/api/v1/onboardings", `/api/v1/customers/${customer}/onboardings`));

/** Each item of a page is what a GET of it answers now. */
async function expectCurrent(page: { body: { data: { id: string }[] } }) {
  for (const item of page.body.data) expect(item).toEqual((await t.call("GET", `/api/v1/onboardings/${item.id}`)).body);
}

describe("lists of rendered onboardings", () => {
  test("a page read again is the same text, and that text is the page's JSON, field for field", async () => {
    for (const path of lists) {
      const first = await listOf(path);
      const again = await listOf(path);
      expect(first.status).toBe(200);
      expectSchema(OnboardingList, first.body);
      expect(again.text).toBe(first.text);
      expect(first.text).toBe(JSON.stringify(first.body));
      await expectCurrent(first);
    }
    const page = (await t.call("GET", "/api/v1/onboardings?limit=3")).body;
    expect(page.data.map((o: { id: string }) => o.id)).toEqual([made[4]!.id, made[3]!.id, made[2]!.id]);
    expect([page.has_more, page.next_cursor]).toEqual([true, page.data[2].created_at]);
  });

  test("a change shows in the next list: a PATCH here, a write by another process (the row's updated_at moved), a delete, a new onboarding", async () => {
    // Rendered and kept; read often enough that lists read versions first (KeptShare.expected).
    for (let i = 0; i < 10; i++) for (const path of lists) await listOf(path);
    const patched = await t.call("PATCH", `/api/v1/onboardings/${made[4]!.id}`, { body: { notes: "patched", state: "at_risk" } });
    expect(patched.status).toBe(200);
    // Another API process's change, as this one sees it: the row and its version moved in the database.
    await t.query(`UPDATE onboardings SET notes = 'from another process', updated_at = updated_at + 1 WHERE id = $1`, made[3]!.id);
    expect((await t.call("DELETE", `/api/v1/onboardings/${made[2]!.id}`)).status).toBe(200);
    const newest = (await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer, notes: "newest" } })).body;

    const page = await listOf(lists[0]!);
    expect(page.body.data.map((o: { id: string; notes: string }) => [o.id, o.notes])).toEqual([
      [newest.id, "newest"],
      [made[4]!.id, "patched"],
      [made[3]!.id, "from another process"],
    ]);
    expect(page.body.data[1]).toEqual(patched.body);
    await expectCurrent(page);
    const filtered = await listOf(lists[1]!);
    expect(filtered.body.data.map((o: { id: string }) => o.id)).toEqual([newest.id, made[4]!.id, made[3]!.id, made[1]!.id, made[0]!.id]);
    await expectCurrent(filtered);
    expect((await listOf(lists[0]!)).text).toBe(page.text);
  });
});

describe("the GET of one rendered onboarding", () => {
  const get = (ref: string | number, key?: string) => t.call("GET", `/api/v1/onboardings/${ref}`, key === undefined ? {} : { key });
  /** Enough GETs that each finds its text kept, so the next ones read versions first (KeptShare.expected). */
  async function warm(refs: (string | number)[]) {
    for (let i = 0; i < 10; i++) for (const ref of refs) expect((await get(ref)).status).toBe(200);
  }

  test("read again, by id or display_id, it is the same text, and that text is its JSON, field for field", async () => {
    const [one] = made;
    const first = await get(one!.id);
    expect(first.status).toBe(200);
    expectSchema(Onboarding, first.body);
    expect(first.text).toBe(JSON.stringify(first.body));
    await warm([one!.id]);
    expect((await get(one!.id)).text).toBe(first.text);
    expect((await get(one!.display_id)).text).toBe(first.text);
    expect((await get(`00${one!.display_id}`)).text).toBe(first.text); // the same display_id, written with leading zeros
  });

  test("a change shows in the next GET, by either reference: a PATCH here, a write by another process, a delete", async () => {
    // made[2] was deleted by the lists' suite above; made[3] and made[4] are still live.
    const [patchedHere, changedElsewhere, deleted] = [made[0]!, made[1]!, made[3]!];
    const refs = [patchedHere, changedElsewhere, deleted].flatMap((o) => [o.id, o.display_id]);
    await warm(refs);
    const patched = await t.call("PATCH", `/api/v1/onboardings/${patchedHere.id}`, { body: { notes: "patched again" } });
    expect(patched.status).toBe(200);
    // Another API process's change, as this one sees it: the row and its version moved in the database.
    await t.query(`UPDATE onboardings SET notes = 'changed elsewhere', updated_at = updated_at + 1 WHERE id = $1`, changedElsewhere.id);
    expect((await t.call("DELETE", `/api/v1/onboardings/${deleted.id}`)).status).toBe(200);

    for (const ref of [patchedHere.id, patchedHere.display_id]) expect((await get(ref)).body).toEqual(patched.body);
    for (const ref of [changedElsewhere.id, changedElsewhere.display_id, `0${changedElsewhere.display_id}`]) expect((await get(ref)).body.notes).toBe("changed elsewhere");
    for (const ref of [deleted.id, deleted.display_id]) {
      const answer = await get(ref);
      expect([answer.status, answer.body.error.code]).toEqual([404, "onboarding_not_found"]);
    }
  });

  test("GETs of one moment (on PostgreSQL read together in one statement) each answer their own onboarding, and another workspace's key 404", async () => {
    // made[2] and made[3] were deleted by the tests above.
    const live = [made[0]!, made[1]!, made[4]!];
    await warm(live.map((o) => o.id));
    const asked = [...live.map((o) => ({ ref: o.id, key: undefined as string | undefined })), { ref: made[4]!.id, key: t.keys.other }, { ref: made[3]!.id, key: undefined }];
    const answers = await Promise.all(asked.map(({ ref, key }) => get(ref, key)));
    for (const [i, o] of live.entries()) expect([answers[i]!.status, answers[i]!.body.id]).toEqual([200, o.id]);
    expect([answers[3]!.status, answers[3]!.body.error.code]).toEqual([404, "onboarding_not_found"]); // another workspace's key
    expect([answers[4]!.status, answers[4]!.body.error.code]).toEqual([404, "onboarding_not_found"]); // deleted
  });

  test("another workspace's key is answered 404 for an onboarding kept here, as for one never read", async () => {
    const kept = made[4]!;
    await warm([kept.id]);
    for (const ref of [kept.id, kept.display_id, "onb_00000000000000000000000000"]) {
      const answer = await get(ref, t.keys.other);
      expect([answer.status, answer.body.error.code]).toEqual([404, "onboarding_not_found"]);
    }
  });
});
