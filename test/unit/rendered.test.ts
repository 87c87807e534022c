import { describe, expect, test } from "bun:test";
import { createKeptShare, createRenderedResources } from "../../api/http/rendered.ts";

describe("rendered resources (api/http/rendered.ts)", () => {
  test("a text is answered for the version it was written from only", () => {
    const rendered = createRenderedResources();
    rendered.set("onb_1", 10, "v10");
    expect(rendered.get("onb_1", 10)).toBe("v10");
    expect(rendered.get("onb_1", 11)).toBeUndefined();
    expect(rendered.get("onb_2", 10)).toBeUndefined();
    rendered.set("onb_1", 11, "v11"); // the newer version replaces the older
    expect([rendered.get("onb_1", 10), rendered.get("onb_1", 11)]).toEqual([undefined, "v11"]);
  });

  test("past its budget of characters, the records first kept longest ago go first", () => {
    const rendered = createRenderedResources(4, 4);
    rendered.set("a", 1, "a1");
    rendered.set("b", 1, "b1");
    rendered.set("a", 2, "a2"); // a new version in a's place
    rendered.set("c", 1, "c1"); // a goes: it was kept first
    expect([rendered.get("a", 2), rendered.get("b", 1), rendered.get("c", 1)]).toEqual([undefined, "b1", "c1"]);
    rendered.set("d", 1, "dddd"); // as long as the budget: b and c go
    expect([rendered.get("b", 1), rendered.get("c", 1), rendered.get("d", 1)]).toEqual([undefined, undefined, "dddd"]);
    rendered.set("e", 1, "eeeee"); // longer than the budget: not kept, and nothing goes for it
    expect([rendered.get("d", 1), rendered.get("e", 1)]).toEqual(["dddd", undefined]);
  });

  test("a text longer than a fiftieth of the budget is not kept", () => {
    const rendered = createRenderedResources(1000);
    rendered.set("short", 1, "x".repeat(20));
    rendered.set("long", 1, "x".repeat(21));
    expect([rendered.get("short", 1)?.length, rendered.get("long", 1)]).toEqual([20, undefined]);
  });

  test("a text found current at a scope's revision is answered at that revision and scope only, and only at the version found", () => {
    const rendered = createRenderedResources();
    rendered.set("onb_1", 10, "v10");
    expect(rendered.current("onb_1", "org_a", 0)).toBeUndefined(); // never confirmed
    rendered.confirm("onb_1", 9, "org_a", 3); // an older version than the text kept: nothing noted
    expect(rendered.current("onb_1", "org_a", 3)).toBeUndefined();
    rendered.confirm("onb_1", 10, "org_a", 3);
    expect([rendered.current("onb_1", "org_a", 3), rendered.current("onb_1", "org_a", 4), rendered.current("onb_1", "org_b", 3)]).toEqual(["v10", undefined, undefined]);
    rendered.set("onb_1", 11, "v11"); // a new version is not confirmed by the old one's read
    expect(rendered.current("onb_1", "org_a", 3)).toBeUndefined();
  });

  test("a name (a display_id) names its record at the revision it was noted at, in its scope only", () => {
    const rendered = createRenderedResources();
    rendered.name("org_a", "7", "onb_1", 3);
    expect([rendered.named("org_a", "7", 3), rendered.named("org_a", "7", 4), rendered.named("org_b", "7", 3), rendered.named("org_a", "8", 3)]).toEqual(["onb_1", undefined, undefined, undefined]);
    rendered.name("org_a", "7", "onb_1", 4); // noted again at a later revision
    expect([rendered.named("org_a", "7", 3), rendered.named("org_a", "7", 4)]).toEqual([undefined, "onb_1"]);
  });

  test("a kind of read reads versions first only while most of its reads find their records kept", () => {
    const kept = createKeptShare();
    expect(kept.expected()).toBe(false);
    for (let i = 0; i < 10; i++) kept.note(true);
    expect(kept.expected()).toBe(true);
    for (let i = 0; i < 10; i++) kept.note(false);
    expect(kept.expected()).toBe(false);
  });
});
