import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../shared/config.ts";

const HOUR = 3600 * 1_000_000;
const DAY = 24 * HOUR;

describe("configuration", () => {
  test("lifetimes: <n>s, <n>m, <n>h or <n>d; a bad one stops start-up naming its variable", () => {
    expect(loadConfig({ ACTIVITY_RETENTION: "7d", OUTBOX_RETENTION: "90m", AUDIT_RETENTION: "45s" }).lifetimes).toMatchObject({
      activity_entries: 7 * DAY,
      activity_pages: 7 * DAY,
      outbox: 90 * 60 * 1_000_000,
      audit_log: 45 * 1_000_000,
    });
    for (const bad of ["90", "0d", "1.5d", "-1d", "1w", "d"]) expect(() => loadConfig({ DELIVERIES_RETENTION: bad })).toThrow(/^DELIVERIES_RETENTION must be a duration/);
  });

  test("defaults", () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: "127.0.0.1",
      publicUrl: "http://127.0.0.1:3000",
      database: { engine: "sqlite", path: "./data/onboarding.sqlite" },
      redisUrl: "redis://127.0.0.1:6379",
      logLevel: "info",
      queuePrefix: "bull",
      queuePrefixTakeover: false,
      dataDir: "./data",
      secretKey: null,
      adminToken: null,
      smtpUrl: null,
      mailFrom: "Customer Onboarding <onboarding@localhost>",
      slackBotToken: null,
      slackApiUrl: null,
      workerConcurrency: { records: 4, outbound: 8, webhooks: 16 },
      webhookRules: { allowHttp: false, allowPrivateNetworks: false, dnsServers: null },
      workerLockSeconds: 30,
      reminderScanSeconds: 60,
      lifetimes: { activity_entries: 90 * DAY, activity_pages: 90 * DAY, events: 30 * DAY, webhook_attempts: 30 * DAY, deliveries: 90 * DAY, outbox: 24 * HOUR, audit_log: 365 * DAY, idempotency_keys: 24 * HOUR },
      retentionPruneSeconds: 600,
      databaseBusyTimeoutMs: 3000,
      redisCommandTimeoutMs: 500,
      httpIdleTimeoutSeconds: 10,
      outboxReconcileSeconds: 30,
    });
  });

  test("PUBLIC_URL: given, derived from HOST and PORT, never a wildcard address", () => {
    expect(loadConfig({ PUBLIC_URL: "https://onboarding.example.com/" }).publicUrl).toBe("https://onboarding.example.com");
    expect(loadConfig({ HOST: "127.0.0.2", PORT: "8080" }).publicUrl).toBe("http://127.0.0.2:8080");
    expect(loadConfig({ HOST: "0.0.0.0" }).publicUrl).toBe("http://127.0.0.1:3000");
    expect(loadConfig({ HOST: "::1" }).publicUrl).toBe("http://[::1]:3000");
    expect(() => loadConfig({ PUBLIC_URL: "onboarding.example.com" })).toThrow(/^PUBLIC_URL/);
    expect(() => loadConfig({ PUBLIC_URL: "ftp://x" })).toThrow(/^PUBLIC_URL/);
  });

  test("a bad value names its variable", () => {
    expect(() => loadConfig({ PORT: "http" })).toThrow(/^PORT/);
    expect(() => loadConfig({ PORT: "70000" })).toThrow(/^PORT/);
    expect(() => loadConfig({ REDIS_URL: "localhost" })).toThrow(/^REDIS_URL/);
    expect(() => loadConfig({ REDIS_URL: "http://x" })).toThrow(/^REDIS_URL/);
    expect(() => loadConfig({ LOG_LEVEL: "loud" })).toThrow(/^LOG_LEVEL/);
    expect(() => loadConfig({ DATABASE_URL: "file:" })).toThrow(/^DATABASE_URL/);
    expect(() => loadConfig({ QUEUE_PREFIX: "a b" })).toThrow(/^QUEUE_PREFIX/);
    expect(() => loadConfig({ SECRET_KEY: "short" })).toThrow(/^SECRET_KEY/);
    expect(() => loadConfig({ SMTP_URL: "mail.example" })).toThrow(/^SMTP_URL/);
    expect(() => loadConfig({ SLACK_API_URL: "ftp://x" })).toThrow(/^SLACK_API_URL/);
    expect(() => loadConfig({ PUBLIC_URL: "admin.example" })).toThrow(/^PUBLIC_URL/);
    expect(() => loadConfig({ WORKER_CONCURRENCY_OUTBOUND: "0" })).toThrow(/^WORKER_CONCURRENCY_OUTBOUND/);
  });

  test("DATABASE_URL takes file: URLs, bare paths and :memory: as SQLite", () => {
    expect(loadConfig({ DATABASE_URL: "file:/tmp/x.sqlite" }).database).toEqual({ engine: "sqlite", path: "/tmp/x.sqlite" });
    expect(loadConfig({ DATABASE_URL: ":memory:" }).database).toEqual({ engine: "sqlite", path: ":memory:" });
    expect(loadConfig({ DATABASE_URL: "./data/x.sqlite" }).database).toEqual({ engine: "sqlite", path: "./data/x.sqlite" });
  });

  test("DATABASE_URL picks PostgreSQL for postgres:// and postgresql://, sized by DATABASE_POOL_SIZE", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://app@db:5432/onb" }).database).toEqual({ engine: "postgres", url: "postgres://app@db:5432/onb", poolSize: 10 });
    expect(loadConfig({ DATABASE_URL: "postgresql://app@db/onb", DATABASE_POOL_SIZE: "25" }).database).toEqual({ engine: "postgres", url: "postgresql://app@db/onb", poolSize: 25 });
    expect(() => loadConfig({ DATABASE_URL: "postgres://app@db/onb", DATABASE_POOL_SIZE: "0" })).toThrow(/^DATABASE_POOL_SIZE/);
  });

  test("any other DATABASE_URL scheme stops start-up, naming the variable, and never becomes a folder", () => {
    expect(() => loadConfig({ DATABASE_URL: "mysql://root@db/onb" })).toThrow(/^DATABASE_URL has the unknown scheme 'mysql:'/);
    expect(() => loadConfig({ DATABASE_URL: "postgres:onb" })).toThrow(/^DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: "postgres://user:s3cret@/onb" })).toThrow(/^DATABASE_URL(?!.*s3cret)/);
  });
});
