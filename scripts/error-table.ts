/**
 * Prints the error table of docs/api.md from the error map: `bun scripts/error-table.ts`.
 * test/http/api-guide.test.ts fails when the guide's table differs from this output.
 */
import { ERRORS } from "../api/http/error-map.ts";

export function errorTable(): string {
  const rows = Object.entries(ERRORS).map(
    ([code, spec]) => `| \`${code}\` | ${spec.status} | \`${spec.type}\` | ${spec.when.replaceAll("|", "\\|")} |`,
  );
  return ["| code | status | type | when |", "|---|---|---|---|", ...rows].join("\n");
}

if (import.meta.main) console.log(errorTable());
