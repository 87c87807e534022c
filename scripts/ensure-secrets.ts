/**
 * Makes sure SECRET_KEY and ADMIN_TOKEN exist: from the environment, else from
 * DATA_DIR/secrets.json, else generated now and kept there (readable by the owner only).
 * A newly generated admin token is printed once. Run by `npm start` and by the container
 * entry; every process of the installation then reads the same file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomSecret } from "../shared/secrets.ts";

export function ensureSecrets(dataDir: string, env: Record<string, string | undefined> = process.env): { file: string; generated: string[] } {
  const file = resolve(join(dataDir, "secrets.json"));
  const stored: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  const generated: string[] = [];
  if (!env.SECRET_KEY && !stored.SECRET_KEY) {
    stored.SECRET_KEY = randomSecret(32);
    generated.push("SECRET_KEY");
  }
  if (!env.ADMIN_TOKEN && !stored.ADMIN_TOKEN) {
    stored.ADMIN_TOKEN = randomSecret(24);
    generated.push("ADMIN_TOKEN");
  }
  if (generated.length > 0) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(stored, null, 2) + "\n", { mode: 0o600 });
    if (generated.includes("ADMIN_TOKEN")) {
      console.log(`[secrets] generated ADMIN_TOKEN (shown once; kept in ${file}): ${stored.ADMIN_TOKEN}`);
    }
    if (generated.includes("SECRET_KEY")) console.log(`[secrets] generated SECRET_KEY, kept in ${file}`);
  }
  return { file, generated };
}

if (import.meta.main) ensureSecrets(process.env.DATA_DIR || "./data");
