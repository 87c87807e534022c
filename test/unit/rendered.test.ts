import { describe, expect, test } from "bun:test";
import { createRenderedResources } from "../../api/http/rendered.ts";

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

  test("past its bound, the records written longest ago go first; writing a record again makes it the newest", () => {
    const rendered = createRenderedResources(2);
    rendered.set("a", 1, "a1");
    rendered.set("b", 1, "b1");
    rendered.set("a", 2, "a2");
    rendered.set("c", 1, "c1"); // b goes: a was written after it
    expect([rendered.get("a", 2), rendered.get("b", 1), rendered.get("c", 1)]).toEqual(["a2", undefined, "c1"]);
  });
});
