/**
 * Writes the OpenAPI document the app serves to .tmp/openapi.json and lints it with
 * Spectral's `spectral:oas` rules; exits non-zero on any warning or error.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Redis } from "ioredis";
import { createApp } from "../api/app.ts";
import { systemClock } from "../shared/clock.ts";
import { openDatabase } from "../shared/db/client.ts";
import { sqliteDatabase } from "../shared/db/database.ts";
import { silentLogger } from "../shared/logger.ts";

const redis = new Redis("redis://127.0.0.1:1", { lazyConnect: true });
const { app } = await createApp({ database: sqliteDatabase(openDatabase(":memory:")), redis, clock: systemClock, logger: silentLogger, publicUrl: "http://127.0.0.1:3000", redisPrefix: "lint" });
const response = await app.handle(new Request("http://localhost/api/v1/openapi.json"));
mkdirSync(".tmp", { recursive: true });
writeFileSync(".tmp/openapi.json", JSON.stringify(await response.json(), null, 2));
redis.disconnect();

const lint = Bun.spawnSync(["spectral", "lint", ".tmp/openapi.json", "--ruleset", ".spectral.yaml", "--fail-severity", "warn"], {
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(lint.exitCode ?? 1);
