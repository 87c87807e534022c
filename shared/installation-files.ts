import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "./errors.ts";

/**
 * What one installation keeps in DATA_DIR so that every terminal agrees with `npm start`:
 *
 * - `settings.json`: the settings `npm start` last ran with (port, host, public URL, database
 *   URL, Redis URL when one was given, queue prefix), written by it on every start. No secret
 *   is written here, and nothing prints the database URL's password.
 * - `secrets.json`: SECRET_KEY and ADMIN_TOKEN (scripts/ensure-secrets.ts).
 *
 * Every entry point (npm start, the API, the worker, the operator command line) resolves a
 * setting the same way: the environment first, then these files, then the defaults of
 * shared/config.ts. DATA_DIR itself cannot come from a file inside it: it is the environment's,
 * or `./data`.
 */
type Env = Record<string, string | undefined>;

export const DEFAULT_DATA_DIR = "./data";

/** The variables `npm start` writes down, in the order the file lists them. */
export const CARRIED_SETTINGS = ["PORT", "HOST", "PUBLIC_URL", "DATABASE_URL", "REDIS_URL", "QUEUE_PREFIX"] as const;
type Carried = (typeof CARRIED_SETTINGS)[number];

/**
 * Written even when left at their default, so the file says what the installation runs with.
 * PUBLIC_URL (derived from HOST and PORT unless given) and REDIS_URL (npm start's private Redis
 * takes a new port on every start) are written only when someone gave them.
 */
const ALWAYS_WRITTEN: Partial<Record<Carried, string>> = {
  PORT: "3000",
  HOST: "127.0.0.1",
  DATABASE_URL: "file:./data/onboarding.sqlite",
  QUEUE_PREFIX: "bull",
};

export const dataDirOf = (env: Env) => env.DATA_DIR || DEFAULT_DATA_DIR;
export const settingsFileOf = (env: Env) => join(dataDirOf(env), "settings.json");
export const secretsFileOf = (env: Env) => join(dataDirOf(env), "secrets.json");

function readJson(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON (${(error as Error).message}); fix it or delete it.`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError(`${file} must hold one JSON object.`);
  return parsed as Record<string, unknown>;
}

/** The settings file's values, as strings (what the environment would have held). */
export function readSettings(env: Env): Partial<Record<Carried, string>> {
  const file = settingsFileOf(env);
  const stored = readJson(file);
  const settings: Partial<Record<Carried, string>> = {};
  for (const name of CARRIED_SETTINGS) {
    const value = stored[name];
    if (value === undefined || value === null || value === "") continue;
    if (typeof value !== "string" && typeof value !== "number") throw new ConfigError(`${name} in ${file} must be a string (got ${JSON.stringify(value)}).`);
    settings[name] = String(value);
  }
  return settings;
}

export interface InstallationEnv {
  env: Env;
  /** The variables taken from the files, for messages ("PORT came from …"). */
  fromFiles: { name: string; file: string }[];
}

/**
 * The environment completed from DATA_DIR's files: a variable set in the environment (even to
 * an empty string, for PUBLIC_URL and REDIS_URL: "use the default") always wins.
 */
export function withInstallationFiles(env: Env): InstallationEnv {
  const merged: Env = { ...env };
  const fromFiles: InstallationEnv["fromFiles"] = [];
  const settingsFile = settingsFileOf(env);
  for (const [name, value] of Object.entries(readSettings(env))) {
    if (env[name] !== undefined) continue;
    merged[name] = value;
    fromFiles.push({ name, file: settingsFile });
  }
  const secretsFile = secretsFileOf(env);
  if (!env.SECRET_KEY || !env.ADMIN_TOKEN) {
    const secrets = readJson(secretsFile);
    for (const name of ["SECRET_KEY", "ADMIN_TOKEN"]) {
      if (env[name] || typeof secrets[name] !== "string") continue;
      merged[name] = secrets[name] as string;
      fromFiles.push({ name, file: secretsFile });
    }
  }
  return { env: merged, fromFiles };
}

/**
 * Writes the settings `npm start` runs with into DATA_DIR/settings.json (owner-readable only:
 * a PostgreSQL URL may carry a password). `env` is the resolved environment, files included,
 * before npm start puts its private Redis's address in it.
 */
export function writeSettings(env: Env): { file: string; settings: Partial<Record<Carried, string>> } {
  const settings: Partial<Record<Carried, string>> = {};
  for (const name of CARRIED_SETTINGS) {
    const value = env[name] || ALWAYS_WRITTEN[name];
    if (value !== undefined) settings[name] = value;
  }
  const file = resolve(settingsFileOf(env));
  mkdirSync(dataDirOf(env), { recursive: true });
  writeFileSync(file, JSON.stringify(settings, null, 2) + "\n", { mode: 0o600 });
  return { file, settings };
}
