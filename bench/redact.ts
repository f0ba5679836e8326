/**
 * Redaction speed: every text otto posts, logs or stores passes redact(), CI logs included (up to a
 * few MB). `node --import tsx bench/redact.ts [--write]`.
 */
import { redact } from "../src/core/redact.ts";
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";

const HEADING = "## Redaction";

/** A CI log: timestamps, paths, test names, a few secrets, a base64 blob. */
function ciLog(bytes: number): string {
  const lines = [
    "2026-02-06T12:00:00.1234567Z ##[group]Run npm test",
    "2026-02-06T12:00:01.0000000Z  ✓ test/unit/core/redact.test.ts (48 tests) 61ms",
    "2026-02-06T12:00:01.5000000Z npm ERR! code E401 Authorization: token ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "2026-02-06T12:00:02.0000000Z error TS2322: Type 'string' is not assignable to type 'number'. src/config/load.ts(12,5)",
    "2026-02-06T12:00:02.5000000Z fetch https://ci:s3cr3t@registry.example.com/pkg failed, max_tokens=4096 password=hunter2",
    `2026-02-06T12:00:03.0000000Z data:image/png;base64,${"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk".repeat(8)}`,
  ];
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = lines[i % lines.length] ?? "";
    out.push(line);
    size += line.length + 1;
  }
  return out.join("\n");
}

export async function benchRedact(log: (line: string) => void): Promise<string> {
  const secrets = ["known-secret-1", "abc", "https://hooks.slack.com/services/T000/B000/XXXX"];
  const rows: string[] = [];
  for (const mb of [0.1, 1, 4]) {
    const text = ciLog(mb * 1024 * 1024);
    redact(text, secrets); // warm-up
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      redact(text, secrets);
      times.push(performance.now() - started);
    }
    const median = [...times].sort((a, b) => a - b)[2] ?? 0;
    log(`${mb} MB: ${median.toFixed(1)} ms`);
    rows.push(`| ${mb} MB CI log | ${median.toFixed(1)} ms |`);
  }
  return [
    HEADING,
    "",
    "`redact()` on a synthetic CI log (token formats, URLs, assignments, base64 data) with three known secrets; median of 5.",
    "",
    "| input | time |",
    "|---|---|",
    ...rows,
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection(HEADING, section);
}

runStandalone(import.meta.url, benchRedact, writeSection);
