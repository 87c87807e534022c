import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parse } from "yaml";

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
    expect(compose.services.worker.depends_on.api.condition).toBe("service_healthy");
    expect(Object.keys(compose.volumes).sort()).toEqual(["data", "redis-data"]);
  });

  test("the Dockerfile installs with npm alone and runs the API by default", () => {
    const dockerfile = readFileSync("Dockerfile", "utf8");
    expect(dockerfile).toMatch(/^FROM node:/m);
    expect(dockerfile).toContain("npm ci --include=dev"); // Bun is a devDependency; NODE_ENV=production would drop it
    expect(dockerfile).toContain('CMD ["npm", "run", "start:api"]');
    expect(dockerfile).toContain("COPY shims ./shims"); // the lock file's override needs it before npm ci
  });
});
