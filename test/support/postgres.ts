import { SQL } from "bun";

/**
 * PostgreSQL for the suites: `TEST_POSTGRES_URL` (the preload sets it when one answers at
 * 127.0.0.1:5432), a server URL whose user may create databases. Undefined: no PostgreSQL,
 * and the PostgreSQL variants of the suites are skipped (CI always provides one).
 */
export const testPostgresUrl = (): string | undefined => process.env.TEST_POSTGRES_URL || undefined;

/** Whether a PostgreSQL server answers at `url` within a second. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new SQL({ url, max: 1, connectionTimeout: 1 });
  try {
    await client`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => {});
  }
}

/** A database of its own for one test file (`t_<random>`), dropped by `drop()` in afterAll. */
export async function freshPostgresDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = new SQL({ url: serverUrl, max: 1, connectionTimeout: 3 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      try {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.close();
      }
    },
  };
}
