import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../test/support/index.ts";

/**
 * Puts a section (starting with `heading`) into docs/benchmarks.md, replacing an older one and
 * keeping the others: each bench owns its own section.
 */
export function writeSection(heading: string, section: string): void {
  const file = path.join(REPO_ROOT, "docs", "benchmarks.md");
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n";
  const start = current.indexOf(heading);
  const next = start < 0 ? -1 : current.indexOf("\n## ", start + 1);
  const rest = next < 0 ? "" : `\n${current.slice(next + 1)}`;
  const updated = start < 0 ? `${current.trimEnd()}\n\n${section.trimEnd()}\n` : `${current.slice(0, start)}${section.trimEnd()}\n${rest}`;
  fs.writeFileSync(file, updated);
}

/**
 * Runs one bench when its file is the entry point (`node --import tsx bench/<name>.ts [--write]`):
 * prints its section, and with --write puts it into docs/benchmarks.md.
 */
export function runStandalone(
  moduleUrl: string,
  bench: (log: (line: string) => void) => Promise<string>,
  write: (section: string) => void,
): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? "").href) return;
  bench((line) => process.stdout.write(`${line}\n`))
    .then((section) => {
      process.stdout.write(`\n${section}`);
      if (process.argv.includes("--write")) write(section);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
