import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { openApiPath } from "../../api/http/route.ts";
import { ErrorObject } from "../../api/http/error.schema.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.call("GET", "/api/v1/openapi.json", { key: null })).body;
});
afterAll(() => t.close());

describe("OpenAPI document", () => {
  test("is OpenAPI 3.1 and served without a key", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "http://127.0.0.1:3000", description: "This server" }]); // the app's publicUrl
    // Every absolute link in the document starts at the public URL; example values (a webhook
    // receiver's URL) use the names reserved for examples (RFC 2606), which lead nowhere.
    const links = JSON.stringify(doc).match(/https?:\/\/[^"\s)]+/g) ?? [];
    expect(links.filter((l) => !l.startsWith("http://127.0.0.1:3000") && !/^https:\/\/[^/]*\.example\.com\//.test(l))).toEqual([]);
  });

  test("documents every route, with its success and error responses", () => {
    for (const route of t.routes) {
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation?.operationId).toBe(route.operationId);
      expect(operation.responses[route.success.status]).toBeDefined();
      expect(operation.responses["500"]).toBeDefined();
      if (route.authenticated) {
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["401", "429"]));
        expect(operation.security).toEqual([{ bearerAuth: [] }]);
      } else {
        expect(operation.security).toEqual([]);
      }
      for (const code of route.errors) {
        const documented = Object.values(operation.responses).some((r: any) => r.content?.["application/json"]?.examples?.[code]);
        expect(`${route.operationId}: ${code} ${documented}`).toBe(`${route.operationId}: ${code} true`);
      }
      if (route.idempotent) expect(operation.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key");
    }
    const documentedOperations = Object.values(doc.paths).flatMap((p: any) => Object.keys(p).filter((m) => m !== "options")).length;
    expect(documentedOperations).toBe(t.routes.length);
    // Every path also documents OPTIONS (204 with Allow).
    for (const path of Object.values(doc.paths) as any[]) expect(path.options.responses["204"].headers.Allow.required).toBe(true);
  });

  test("every example matches the schema it illustrates", () => {
    for (const route of t.routes) {
      expect(`${route.operationId}: ${Value.Errors(route.success.schema, route.success.example).First()?.message ?? "ok"}`).toBe(`${route.operationId}: ok`);
      if (!route.body) continue;
      // The reference's request samples: a real body for every route that takes one, never Redoc's "string" placeholders.
      expect(`${route.operationId}: ${route.bodyExample === undefined ? "no request example" : (Value.Errors(route.body, route.bodyExample).First()?.message ?? "ok")}`).toBe(`${route.operationId}: ok`);
      const requestBody = doc.paths[openApiPath(route.path)][route.method.toLowerCase()].requestBody.content["application/json"];
      expect(requestBody.example).toEqual(route.bodyExample);
      expect(JSON.stringify(requestBody.example)).not.toContain('"string"');
    }
    for (const path of Object.values(doc.paths) as any[]) {
      for (const operation of Object.values(path) as any[]) {
        for (const response of Object.values(operation.responses) as any[]) {
          for (const example of Object.values(response.content?.["application/json"]?.examples ?? {}) as any[]) {
            expect(Value.Check(ErrorObject, example.value)).toBe(true);
          }
        }
      }
    }
  });

  test("named schemas are shared components", () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["Customer", "Contact", "Onboarding", "Error", "CreateOnboarding", "UpdateOnboarding", "OnboardingList"]),
    );
    expect(doc.components.schemas.Onboarding.properties.phase.enum).toContain("launch");
  });
});
