import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The client's examples in docs/api.md and client/README.md compile against the client's
 * published types (client/dist/*.d.ts), each block as a module of its own, so an example can
 * not drift from the API it shows. Names an example takes as given (the client, the caller's
 * own functions) are declared in a prelude.
 */
const ROOT = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "client-doc-examples-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the examples use without making it: declared unless the block declares or imports it. */
const PRELUDE: Record<string, string> = {
  client: "declare const client: import('onboarding-client').OnboardingClient;",
  acme: "declare const acme: import('onboarding-client').Customer;",
  deal: "declare const deal: { id: string };",
  dealId: "declare const dealId: string;",
  cursor: "declare const cursor: string;",
  shutdown: "declare const shutdown: AbortController;",
  save: "declare function save(record: unknown): Promise<void>;",
  store: "declare function store(records: unknown[]): Promise<void>;",
  apply: "declare function apply(event: import('onboarding-client').Event): Promise<void>;",
  storeCursor: "declare function storeCursor(cursor: string | undefined): Promise<void>;",
  saveCursor: "declare function saveCursor(cursor: string | null | undefined): Promise<void>;",
  loadCursor: "declare function loadCursor(): Promise<string | undefined>;",
  saveSecret: "declare function saveSecret(secret: string): Promise<void>;",
  queue: "declare const queue: { add(name: string, data: unknown): Promise<unknown> };",
  express: "declare const express: { raw(options: { type: string }): unknown };",
  app: "declare const app: { post(path: string, middleware: unknown, handler: (req: { body: Buffer; headers: import('node:http').IncomingHttpHeaders }, res: { sendStatus(status: number): void }) => void): void };",
};

/** The `ts` blocks of a Markdown file that use the client. */
function clientBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => /onboarding-client|\bclient\.|verifyWebhook/.test(b));
}

function moduleFor(block: string): string {
  const declared = (name: string) =>
    new RegExp(`\\b(const|let|function)\\s+${name}\\b|\\b(const|let)\\s+\\{[^}]*\\b${name}\\b|^import\\s*\\{[^}]*\\b${name}\\b`, "m").test(block);
  const used = (name: string) => new RegExp(`(?<![.\\w])${name}\\b`).test(block);
  const prelude = Object.entries(PRELUDE)
    .filter(([name]) => used(name) && !declared(name))
    .map(([, line]) => line);
  return [...prelude, block, "export {};"].join("\n");
}

describe("the client's examples", () => {
  test("every ts block of docs/api.md and client/README.md that uses the client compiles against its types", () => {
    const files: string[] = [];
    for (const source of ["docs/api.md", "client/README.md"]) {
      const blocks = clientBlocks(source);
      expect(blocks.length).toBeGreaterThan(3);
      blocks.forEach((block, i) => {
        const name = `${source.replace(/\W/g, "-")}-${i + 1}.mts`;
        writeFileSync(join(dir, name), moduleFor(block));
        files.push(name);
      });
    }
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022"],
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules/@types")],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          noUnusedLocals: false,
          paths: { "onboarding-client": [join(ROOT, "client/dist/index.d.ts")] },
        },
        files,
      }),
    );
    const tsc = Bun.spawnSync([join(ROOT, "node_modules/.bin/tsc"), "-p", dir], { stdout: "pipe", stderr: "pipe" });
    const output = tsc.stdout.toString() + tsc.stderr.toString();
    // On failure, name the block: the file name says which document and which ts block.
    expect(output).toBe("");
    expect(tsc.exitCode).toBe(0);
  });
});
