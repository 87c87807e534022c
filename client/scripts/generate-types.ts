/**
 * Writes `client/src/openapi.ts`: the types of the OpenAPI document the service serves at
 * `/api/v1/openapi.json`, by `openapi-typescript`. Run after any change to a route's schema:
 *
 *   bun client/scripts/generate-types.ts        (from the repository root)
 *
 * The document is built in-process by the app's own builder (the same call that answers
 * `GET /api/v1/openapi.json`), over an in-memory SQLite database and a Redis it never
 * connects to, so no service needs to be running. test/client/generated-files.test.ts
 * generates again from a running API's served document and fails when this file differs.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";

export const TYPES_PATH = fileURLToPath(new URL("../src/openapi.ts", import.meta.url));

const HEADER = `${COMMENT_HEADER.trimEnd()}
/* Regenerate with \`bun client/scripts/generate-types.ts\`; a test fails when it is stale. */

`;

/** The file's text for a document: deterministic, so a fresh generation can be compared byte for byte. */
export async function typesFor(document: unknown): Promise<string> {
  // The document names the installation's URL and version; neither shapes a type.
  const ast = await openapiTS(document as OpenAPI3, { silent: true, alphabetize: false });
  return HEADER + astToString(ast);
}

/** The document exactly as the app serves it, built without a running service. */
export async function servedDocument(): Promise<unknown> {
  const [{ Redis }, { createApp }, { systemClock }, { openDatabase }, { sqliteDatabase }, { silentLogger }] = await Promise.all([
    import("ioredis"),
    import("../../api/app.ts"),
    import("../../shared/clock.ts"),
    import("../../shared/db/client.ts"),
    import("../../shared/db/database.ts"),
    import("../../shared/logger.ts"),
  ]);
  const redis = new Redis("redis://127.0.0.1:1", { lazyConnect: true });
  const database = sqliteDatabase(openDatabase(":memory:"));
  const { app, close } = await createApp({ database, redis, clock: systemClock, logger: silentLogger, publicUrl: "http://127.0.0.1:3000", redisPrefix: "client-types" });
  try {
    const response = await app.handle(new Request("http://localhost/api/v1/openapi.json"));
    if (!response.ok) throw new Error(`the app answered ${response.status} for its OpenAPI document`);
    return await response.json();
  } finally {
    await close().catch(() => {});
    redis.disconnect();
    await database.close();
  }
}

if (import.meta.main) {
  writeFileSync(TYPES_PATH, await typesFor(await servedDocument()));
  console.log(`wrote ${TYPES_PATH}`);
  process.exit(0);
}
