import fs from "node:fs";

/**
 * Safety figures measured by tests (secrets planted / reaching a sink, pushes attempted / reaching a
 * remote, …). `npm run bench` runs those tests with OTTO_FIGURES_FILE set and reports what they
 * recorded (bench/safety.ts); in a plain test run this does nothing.
 */
export interface Figure {
  /** What was measured, e.g. "push attempts by sessions (real OpenCode)". */
  name: string;
  /** What was tried: secrets planted, pushes attempted, files before. */
  tried: number;
  /** What got through: secrets in a sink, pushes on the remote, files changed. Target 0 (files: equal). */
  through: number;
}

export function recordFigure(figure: Figure): void {
  const file = process.env.OTTO_FIGURES_FILE;
  if (file) fs.appendFileSync(file, `${JSON.stringify(figure)}\n`);
}

export function readFigures(file: string): Figure[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Figure);
}
