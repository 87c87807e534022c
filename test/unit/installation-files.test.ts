import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadInstallationConfig } from "../../shared/config.ts";
import { withInstallationFiles, writeSettings } from "../../shared/installation-files.ts";

const dir = mkdtempSync(join(tmpdir(), "onboarding-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("DATA_DIR/settings.json", () => {
  test("the writer keeps what npm start runs with, never a secret, readable by the owner only", () => {
    const { file, settings } = writeSettings({
      DATA_DIR: dir,
      PORT: "4100",
      DATABASE_URL: "postgres://onb:hunter2@db.example:5432/onboarding",
      QUEUE_PREFIX: "acme",
      SECRET_KEY: "s".repeat(40),
      ADMIN_TOKEN: "a".repeat(24),
      SMTP_URL: "smtp://mail.example",
    });
    expect(file).toBe(join(dir, "settings.json"));
    // HOST at its default is written too; PUBLIC_URL (derived) and REDIS_URL (npm start's private one moves) only when given.
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ PORT: "4100", HOST: "127.0.0.1", DATABASE_URL: "postgres://onb:hunter2@db.example:5432/onboarding", QUEUE_PREFIX: "acme" });
    expect(settings).not.toHaveProperty("SECRET_KEY");
    expect(readFileSync(file, "utf8")).not.toContain("s".repeat(40));
    expect(statSync(file).mode & 0o777).toBe(0o600);

    writeSettings({ DATA_DIR: dir, PORT: "4100", PUBLIC_URL: "https://onboarding.example", REDIS_URL: "redis://cache.example:6379" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ PUBLIC_URL: "https://onboarding.example", REDIS_URL: "redis://cache.example:6379", DATABASE_URL: "file:./data/onboarding.sqlite" });
  });

  test("resolution: the environment, then the files, then the defaults", () => {
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ PORT: "4100", HOST: "127.0.0.1", DATABASE_URL: "file:/srv/onb.sqlite", QUEUE_PREFIX: "acme" }));
    writeFileSync(join(dir, "secrets.json"), JSON.stringify({ SECRET_KEY: "k".repeat(40), ADMIN_TOKEN: "t".repeat(24) }));
    const fromFiles = loadInstallationConfig({ DATA_DIR: dir });
    expect(fromFiles).toMatchObject({ port: 4100, publicUrl: "http://127.0.0.1:4100", queuePrefix: "acme", database: { engine: "sqlite", path: "/srv/onb.sqlite" }, secretKey: "k".repeat(40) });
    const fromEnv = loadInstallationConfig({ DATA_DIR: dir, PORT: "4200", QUEUE_PREFIX: "other", SECRET_KEY: "e".repeat(40) });
    expect(fromEnv).toMatchObject({ port: 4200, publicUrl: "http://127.0.0.1:4200", queuePrefix: "other", secretKey: "e".repeat(40), adminToken: "t".repeat(24) });
    // An empty PUBLIC_URL in the environment means "the default", whatever the file says.
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ PORT: "4100", PUBLIC_URL: "https://onboarding.example" }));
    expect(loadInstallationConfig({ DATA_DIR: dir }).publicUrl).toBe("https://onboarding.example");
    expect(loadInstallationConfig({ DATA_DIR: dir, PUBLIC_URL: "" }).publicUrl).toBe("http://127.0.0.1:4100");
    expect(withInstallationFiles({ DATA_DIR: dir, PORT: "1" }).fromFiles.map((f) => f.name)).toEqual(["PUBLIC_URL", "SECRET_KEY", "ADMIN_TOKEN"]);
    // Without the files, the defaults.
    expect(loadInstallationConfig({ DATA_DIR: join(dir, "none") })).toMatchObject({ port: 3000, queuePrefix: "bull", secretKey: null });
  });

  test("a bad file stops start-up naming it", () => {
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ QUEUE_PREFIX: "a b" }));
    expect(() => loadInstallationConfig({ DATA_DIR: dir })).toThrow(`QUEUE_PREFIX was read from ${join(dir, "settings.json")}`);
    writeFileSync(join(dir, "settings.json"), "[1]");
    expect(() => loadInstallationConfig({ DATA_DIR: dir })).toThrow("must hold one JSON object");
  });
});
