import { cleanLine } from "./trim-log.ts";

/*
 * The lines of a whole CI log that say what a step ran, kept apart from the trimmed log (which
 * keeps error lines and the end, and drops the step's header far above them): GitHub writes
 * `##[group]Run npm test` … `##[endgroup]` before a step's output, Azure writes the script's
 * contents at the top of the task log, between `Script contents:` and `Starting Command Output`.
 * screen-failure.ts maps a failed check to the project's command from these. Pure.
 */

const AZURE_START = /^Script contents:/;
const AZURE_END = /^=+ Starting Command Output =+$/;
/** How many lines are kept: a log's headers, not its output. */
const MAX_LINES = 400;

export function commandLines(log: string): string {
  const kept: string[] = [];
  let script = false;
  for (const raw of log.split("\n")) {
    const line = cleanLine(raw).trim();
    if (AZURE_START.test(line)) script = true;
    else if (AZURE_END.test(line)) script = false;
    else if (script || /^(?:##\[group\]|##\[command\])?Run\s/.test(line) || /^[$>+]\s/.test(line)) kept.push(line);
    if (kept.length >= MAX_LINES) break;
  }
  return kept.join("\n");
}
