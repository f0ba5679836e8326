import { describe, expect, it } from "vitest";
import { commandLines } from "../../../../src/pr/fix/log-commands.ts";
import { logRuns } from "../../../../src/pr/fix/screen-failure.ts";
import { trimLog } from "../../../../src/pr/fix/trim-log.ts";

/* A failed check mapped to the project's command from the whole log, shaped as each forge writes it: long, the step's header far above the error. */

const ts = (i: number) => `2026-02-06T10:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.1234567Z `;
const output = (n: number) => Array.from({ length: n }, (_, i) => `  ✓ test ${i} passes (${i % 7} ms)`);

/** A job log as GitHub Actions writes it (timestamps, groups), with the failing step's header 3,000 lines above its error. */
const GITHUB = [
  "##[group]Runner Image",
  "Image: ubuntu-24.04",
  "##[endgroup]",
  "##[group]Run actions/checkout@v4",
  "with:",
  "  fetch-depth: 1",
  "##[endgroup]",
  "##[group]Run npm test",
  "\u001b[36;1mnpm test\u001b[0m",
  "shell: /usr/bin/bash -e {0}",
  "##[endgroup]",
  "> app@1.0.0 test",
  "> vitest run",
  ...output(3000),
  "FAIL test/math.test.js > add > adds two numbers",
  "AssertionError: expected -1 to be 3",
  "##[error]Process completed with exit code 1.",
]
  .map((l, i) => `${ts(i)}${l}`)
  .join("\n");

/** A task log as Azure Pipelines writes it: the script's contents at the top, then its output. */
const AZURE = [
  "##[section]Starting: npm test",
  "==============================================================================",
  "Task         : Command line",
  "Version      : 2.250.1",
  "==============================================================================",
  "Generating script.",
  "Script contents:",
  "npm test",
  "========================== Starting Command Output ===========================",
  "[command]/usr/bin/bash --noprofile --norc /home/vsts/work/_temp/6c1e.sh",
  ...output(3000),
  "FAIL test/math.test.js > add > adds two numbers",
  "##[error]Bash exited with code '1'.",
  "##[section]Finishing: npm test",
]
  .map((l, i) => `${ts(i)}${l}`)
  .join("\n");

describe("which project command a failed check ran, from its whole log", () => {
  it("GitHub: the `##[group]Run npm test` header 3,000 lines above the error; the trimmed log alone has lost it", () => {
    expect(logRuns(trimLog(GITHUB), "npm test")).toBe(false);
    expect(logRuns(commandLines(GITHUB), "npm test")).toBe(true);
    expect(logRuns(commandLines(GITHUB), "npm run lint")).toBe(false);
  });

  it("Azure: the script's contents at the top of the task log", () => {
    expect(logRuns(trimLog(AZURE), "npm test")).toBe(false);
    expect(logRuns(commandLines(AZURE), "npm test")).toBe(true);
    expect(logRuns(commandLines(AZURE), "npm run build")).toBe(false);
  });

  it("keeps headers, not output: a long log's command lines stay small", () => {
    expect(commandLines(GITHUB).split("\n").length).toBeLessThan(10);
  });
});
