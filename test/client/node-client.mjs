// Run by node-import.test.ts with Node.js (not Bun): the client as a Node.js program imports
// it, by package name (resolved through package.json "exports") and by path into dist/.
import { OnboardingApiError, OnboardingClient, verifyWebhook, WebhookVerificationError } from "onboarding-client";
import * as byPath from "../../client/dist/index.js";

const { BASE_URL, API_KEY, DELIVERY } = process.env;
const client = new OnboardingClient({ apiKey: API_KEY, baseUrl: BASE_URL });

const me = await client.me();
const made = [];
for (const name of ["Node One", "Node Two", "Node Three"]) made.push((await client.customers.create({ name })).id);
const listed = [];
for await (const customer of client.customers.list({ limit: 2 })) listed.push(customer.id);
const missing = await client.customers.retrieve("cus_missing").catch((error) => error);

const delivery = JSON.parse(DELIVERY);
const event = verifyWebhook(delivery.body, delivery.headers, delivery.secret);
const tampered = (() => {
  try {
    verifyWebhook(delivery.body.replace("Node", "Mode"), delivery.headers, delivery.secret);
    return "accepted";
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.code : String(error);
  }
})();

console.log(
  JSON.stringify({
    runtime: typeof Bun === "undefined" ? `node ${process.version}` : "bun",
    samePackage: byPath.OnboardingClient === OnboardingClient,
    org: me.organization.slug,
    made,
    listed,
    missing: missing instanceof OnboardingApiError ? { status: missing.status, code: missing.code, requestId: missing.requestId } : String(missing),
    event: { id: event.id, type: event.type },
    tampered,
  }),
);
