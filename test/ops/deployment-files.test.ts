import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { RUNTIME_ENV } from "../../shared/runtime-env.ts";

// There is no Docker engine on our machines: the files are checked by parsing them.
describe("deployment files", () => {
  const compose = parse(readFileSync("docker-compose.yml", "utf8"));

  test("compose runs redis, api and a scalable worker from one image", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["api", "redis", "worker"]);
    const { api, worker, redis } = compose.services;
    expect(api.build).toBe(".");
    expect(worker.build).toBe(".");
    expect(redis.image).toMatch(/^redis:/);
    // `--scale worker=N` needs a worker without a fixed name or published port.
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    expect(worker.command.join(" ")).toContain("worker/main.ts");
    expect(api.command.join(" ")).toContain("api/main.ts");
  });

  test("both processes share the data volume, reach Redis by name, and get time to drain", () => {
    for (const name of ["api", "worker"]) {
      const service = compose.services[name];
      expect(service.environment.REDIS_URL).toBe("redis://redis:6379");
      expect(service.volumes).toContain("data:/data");
      expect(Number.parseInt(service.stop_grace_period, 10)).toBeGreaterThanOrEqual(10);
    }
    expect(compose.services.api.healthcheck.test.join(" ")).toContain("/api/v1/health");
    expect(new URL(compose.services.api.environment.PUBLIC_URL).hostname).not.toBe("0.0.0.0");
    expect(compose.services.worker.depends_on.api.condition).toBe("service_healthy");
    expect(Object.keys(compose.volumes).sort()).toEqual(["data", "redis-data"]);
  });

  test("the PostgreSQL compose file scales the API and the workers across hosts: no shared volume, one database, secrets from the environment", () => {
    const pg = parse(readFileSync("docker-compose.postgres.yml", "utf8"), { merge: true });
    expect(Object.keys(pg.services).sort()).toEqual(["api", "postgres", "redis", "worker"]);
    expect(pg.services.postgres.image).toMatch(/^postgres:/);
    for (const name of ["api", "worker"]) {
      const service = pg.services[name];
      // `--scale api=3 --scale worker=4`: no fixed names, no volumes shared with other replicas.
      expect(service.container_name).toBeUndefined();
      expect(service.volumes).toBeUndefined();
      expect(service.environment.DATABASE_URL).toMatch(/^postgres:\/\/onboarding:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/onboarding$/);
      expect(service.environment.REDIS_URL).toBe("redis://redis:6379");
      // Generated secrets would differ per replica: they must come from the environment.
      expect(service.environment.SECRET_KEY).toMatch(/^\$\{SECRET_KEY:\?/);
      expect(service.depends_on.postgres.condition).toBe("service_healthy");
      expect(Number.parseInt(service.stop_grace_period, 10)).toBeGreaterThanOrEqual(10);
    }
    // One published host port per API replica, not a fixed one that a second replica would conflict on.
    expect(pg.services.api.ports).toEqual(["3000-3009:3000"]);
    expect(pg.services.api.command.join(" ")).not.toContain("ensure-secrets");
    expect(pg.services.redis.command).toContain("noeviction");
  });

  test("the Dockerfile installs with npm alone and runs the API by default", () => {
    const steps = parseDockerfile(readFileSync("Dockerfile", "utf8"));
    const kinds = steps.map((s) => s.instruction);
    expect(steps[0]).toMatchObject({ instruction: "FROM" });
    expect(steps[0]!.args).toMatch(/^node:\d+/);
    const install = steps.findIndex((s) => s.instruction === "RUN" && /(^|&&\s*)npm ci\b/.test(s.args));
    expect(install).toBeGreaterThan(0);
    // Bun is a devDependency; NODE_ENV=production would drop it without --include=dev.
    expect(steps[install]!.args.split(/\s+/)).toContain("--include=dev");
    // The lock file's override points into shims/: it must be there before npm ci.
    const copies = steps.map((s, i) => ({ ...s, i })).filter((s) => s.instruction === "COPY");
    const shims = copies.find((c) => c.args.split(/\s+/)[0] === "shims");
    expect(shims && shims.i < install).toBe(true);
    const env = Object.assign({}, ...steps.filter((s) => s.instruction === "ENV").map((s) => envPairs(s.args)));
    expect(env).toMatchObject({ HOST: "0.0.0.0", DATA_DIR: "/data" });
    const cmd = steps.filter((s) => s.instruction === "CMD").at(-1)!;
    expect(JSON.parse(cmd.args)).toEqual(["npm", "run", "start:api"]);
    expect(kinds.filter((k) => k === "CMD")).toHaveLength(1);
    expect(steps.find((s) => s.instruction === "VOLUME")?.args).toContain("/data");
  });

  test("every way of starting the API and the worker passes Bun's runtime settings: the image, and npm's scripts unless already set", () => {
    const env = Object.assign({}, ...parseDockerfile(readFileSync("Dockerfile", "utf8")).filter((s) => s.instruction === "ENV").map((s) => envPairs(s.args)));
    expect(env).toMatchObject(RUNTIME_ENV);
    const scripts = JSON.parse(readFileSync("package.json", "utf8")).scripts as Record<string, string>;
    for (const name of ["start:api", "start:worker"]) {
      // `KEY=${KEY:-value} … exec bun …`: each setting given before the command, unless the shell already has one.
      const [given, command] = scripts[name]!.split(/(?<=\S) (?=exec )/);
      expect(given!.split(" ").sort()).toEqual(Object.entries(RUNTIME_ENV).map(([key, value]) => `${key}=\${${key}:-${value}}`).sort());
      expect(command).toMatch(/^exec bun (api|worker)\/main\.ts$/);
    }
  });
});

/** Instructions of a Dockerfile: comments dropped, continuation lines joined. */
function parseDockerfile(text: string): { instruction: string; args: string }[] {
  const logical: string[] = [];
  let current = "";
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    if (line.endsWith("\\")) {
      current += line.slice(0, -1) + " ";
      continue;
    }
    current += line;
    if (current.trim() !== "") logical.push(current.trim());
    current = "";
  }
  return logical.map((line) => {
    const [instruction, ...rest] = line.split(/\s+/);
    return { instruction: instruction!.toUpperCase(), args: line.slice(instruction!.length).trim() };
  });
}

/** `ENV A=1 B="two words"` */
function envPairs(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)) out[match[1]!] = match[3] ?? match[2]!;
  return out;
}
