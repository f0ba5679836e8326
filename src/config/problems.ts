import { OttoError } from "../core/index.ts";

/** One thing wrong in a config file, located precisely enough to fix without searching. */
export interface ConfigProblem {
  file: string;
  line: number;
  column: number;
  /** Key path like "spec.max_parallel_tasks"; "(top level)" for the root. */
  key: string;
  /** What was expected, e.g. "a whole number". */
  expected: string;
  /** What the file has, e.g. `"four" (string)`. */
  found: string;
  /** What to do, one line. */
  fix: string;
}

export function formatProblem(problem: ConfigProblem): string {
  const where = `${problem.file}:${problem.line}:${problem.column}`;
  return `${where} ${problem.key}: expected ${problem.expected}, found ${problem.found}.\n  Fix: ${problem.fix}`;
}

export function formatConfigProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `- ${formatProblem(p)}`).join("\n");
}

/** Problems are equal when they say the same thing about the same key (positions may move). */
export function sameProblem(a: ConfigProblem, b: ConfigProblem): boolean {
  return a.file === b.file && a.key === b.key && a.expected === b.expected && a.found === b.found;
}

/** The error thrown for invalid config: lists every problem, each with its own fix line. */
export function configError(problems: readonly ConfigProblem[], heading?: string, fix?: string): OttoError {
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  const title = heading ?? `Invalid otto config (${count}):`;
  return new OttoError(
    "config_invalid",
    `${title}\n${formatConfigProblems(problems)}`,
    fix ?? "Fix each problem above, then run /otto-config validate.",
  );
}

/** How a value appears in a message: short, typed, never a whole object. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return `${JSON.stringify(shown)} (string)`;
  }
  if (typeof value === "number" || typeof value === "boolean") return `${value} (${typeof value})`;
  return typeof value;
}
