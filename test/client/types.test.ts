import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { OnboardingClient, Paginated, operations } from "../../client";

/**
 * The hand-written layer says what each method answers; these assertions hold it to what the
 * OpenAPI document says the operation answers, so the two cannot drift: `tsc --noEmit`
 * (npm run typecheck) fails on a mismatch. The test below is their runtime half.
 */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

type Json<Op extends keyof operations, Status extends number> = operations[Op]["responses"] extends { [S in Status]: { content: { "application/json": infer Body } } } ? Body : never;
type Body<Op extends keyof operations> = operations[Op] extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
type Answer<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;
type Item<F> = F extends (...args: never[]) => Paginated<infer I, infer _P> ? I : never;
type PageOf<F> = F extends (...args: never[]) => Paginated<infer _I, infer P> ? P : never;
type C = OnboardingClient;

export type Checks = [
  Assert<Equal<Answer<C["me"]>, Json<"getMe", 200>>>,
  Assert<Equal<Answer<C["customers"]["create"]>, Json<"createCustomer", 201>>>,
  Assert<Equal<Parameters<C["customers"]["create"]>[0], Body<"createCustomer">>>,
  Assert<Equal<Answer<C["customers"]["retrieve"]>, Json<"getCustomer", 200>>>,
  Assert<Equal<Answer<C["customers"]["update"]>, Json<"updateCustomer", 200>>>,
  Assert<Equal<Parameters<C["customers"]["update"]>[1], Body<"updateCustomer">>>,
  Assert<Equal<Answer<C["customers"]["delete"]>, Json<"deleteCustomer", 200>>>,
  Assert<Equal<PageOf<C["customers"]["list"]>, Json<"listCustomers", 200>>>,
  Assert<Equal<Answer<C["contacts"]["create"]>, Json<"createContact", 201>>>,
  Assert<Equal<Parameters<C["contacts"]["create"]>[1], Body<"createContact">>>,
  Assert<Equal<Answer<C["contacts"]["retrieve"]>, Json<"getContact", 200>>>,
  Assert<Equal<Answer<C["contacts"]["update"]>, Json<"updateContact", 200>>>,
  Assert<Equal<Answer<C["contacts"]["delete"]>, Json<"deleteContact", 200>>>,
  Assert<Equal<PageOf<C["contacts"]["list"]>, Json<"listContacts", 200>>>,
  Assert<Equal<Answer<C["onboardings"]["create"]>, Json<"createOnboarding", 201>>>,
  Assert<Equal<Parameters<C["onboardings"]["create"]>[0], Body<"createOnboarding">>>,
  Assert<Equal<Answer<C["onboardings"]["retrieve"]>, Json<"getOnboarding", 200>>>,
  Assert<Equal<Answer<C["onboardings"]["update"]>, Json<"updateOnboarding", 200>>>,
  Assert<Equal<Parameters<C["onboardings"]["update"]>[1], Body<"updateOnboarding">>>,
  Assert<Equal<Answer<C["onboardings"]["delete"]>, Json<"deleteOnboarding", 200>>>,
  Assert<Equal<PageOf<C["onboardings"]["list"]>, Json<"listOnboardings", 200>>>,
  Assert<Equal<PageOf<C["onboardings"]["listForCustomer"]>, Json<"listCustomerOnboardings", 200>>>,
  Assert<Equal<Answer<C["onboardings"]["phaseDurations"]>, Json<"getOnboardingPhaseDurations", 200>>>,
  Assert<Equal<Answer<C["reports"]["phaseDurations"]>, Json<"getPhaseDurationReport", 200>>>,
  Assert<Equal<Answer<C["events"]["cursor"]>, Json<"getEventCursor", 200>>>,
  // Events are narrowed by type, and stay assignable to the document's Event.
  Assert<Equal<Answer<C["events"]["retrieve"]> extends Json<"getEvent", 200> ? true : false, true>>,
  Assert<Equal<Item<C["events"]["list"]> extends Json<"listEvents", 200>["data"][number] ? true : false, true>>,
  Assert<Equal<Answer<C["webhookEndpoints"]["create"]>, Json<"createWebhookEndpoint", 201>>>,
  Assert<Equal<Parameters<C["webhookEndpoints"]["create"]>[0], Body<"createWebhookEndpoint">>>,
  Assert<Equal<Answer<C["webhookEndpoints"]["retrieve"]>, Json<"getWebhookEndpoint", 200>>>,
  Assert<Equal<Answer<C["webhookEndpoints"]["update"]>, Json<"updateWebhookEndpoint", 200>>>,
  Assert<Equal<Parameters<C["webhookEndpoints"]["update"]>[1], Body<"updateWebhookEndpoint">>>,
  Assert<Equal<Answer<C["webhookEndpoints"]["delete"]>, Json<"deleteWebhookEndpoint", 200>>>,
  Assert<Equal<PageOf<C["webhookEndpoints"]["list"]>, Json<"listWebhookEndpoints", 200>>>,
  Assert<Equal<Answer<C["webhookEndpoints"]["rotateSecret"]>, Json<"rotateWebhookSecret", 200>>>,
  Assert<Equal<Answer<C["webhookEndpoints"]["ping"]>, Json<"pingWebhookEndpoint", 202>>>,
  Assert<Equal<PageOf<C["webhookEndpoints"]["attempts"]>, Json<"listWebhookAttempts", 200>>>,
  Assert<Equal<Answer<C["webhookEndpoints"]["recover"]>, Json<"recoverWebhookEvents", 202>>>,
  Assert<Equal<Parameters<C["webhookEndpoints"]["recover"]>[1], Body<"recoverWebhookEvents">>>,
];

describe("the client's public types", () => {
  test("no declaration of the published package says `any`", () => {
    const dist = join(import.meta.dir, "../../client/dist");
    const declarations = readdirSync(dist, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".d.ts"))
      .map((e) => join(e.parentPath, e.name));
    expect(declarations.length).toBeGreaterThan(10);
    const offenders = declarations.filter((file) =>
      readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "") // comments may say "any"
        .match(/(?<![\w"'`])any(?![\w"'`])/),
    );
    expect(offenders.map((f) => relative(dist, f))).toEqual([]);
  });
});
