/**
 * `bun bench/postgres-statement-cost.ts [--url=postgres://…] [--count=N]`: what Bun's
 * PostgreSQL client costs this process per statement, in CPU and wall time, for the shapes a
 * request is made of: one statement on the pool (the bare server's whole request), a
 * transaction around one statement (BEGIN and COMMIT), eight statements awaited one by one in a
 * transaction (a create before #26), and the same eight sent at once (pipelined, `Statement.send`).
 * It says how many statements a request can afford against a bare server that runs one.
 * Nothing is written: every statement is `SELECT $1`. Three rounds; prints each.
 */
import { SQL } from "bun";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const url = arg("url") ?? process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const count = Number(arg("count") ?? 2000);
const sql = new SQL({ url, max: 4, connectionTimeout: 5 });

async function measure(label: string, once: () => Promise<unknown>): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await once();
  const used = process.cpuUsage(cpu);
  const wallMicros = ((performance.now() - started) * 1000) / count;
  console.log(`${label.padEnd(44)} ${((used.user + used.system) / count).toFixed(0).padStart(5)} µs CPU  ${wallMicros.toFixed(0).padStart(5)} µs wall`);
}

const select = (on: { unsafe: SQL["unsafe"] }, i = 1) => on.unsafe("SELECT $1::int AS x", [i]);
try {
  await select(sql);
  for (let round = 1; round <= 3; round++) {
    console.log(`round ${round} (${count} each, one at a time)`);
    await measure("one statement on the pool", () => select(sql));
    await measure("BEGIN, one statement, COMMIT", () => sql.begin((tx) => select(tx)));
    await measure("BEGIN, 8 statements one by one, COMMIT", () =>
      sql.begin(async (tx) => {
        for (let i = 0; i < 8; i++) await select(tx, i);
      }),
    );
    await measure("BEGIN, 8 statements sent at once, COMMIT", () => sql.begin((tx) => Promise.all(Array.from({ length: 8 }, (_, i) => select(tx, i)))));
  }
} finally {
  await sql.close();
}
