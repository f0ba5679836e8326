import { data, Evaluator, Lexer, Parser } from "@actions/expressions";
import { truthy } from "@actions/expressions/result";
import { parse } from "yaml";
import { planCiInit } from "../../../src/pr/ci/init/index.ts";
import type { Permissions } from "../../support/fake-github/index.ts";

/*
 * The job `ci init github` writes, read as a runner reads it: its `permissions` (what the fake
 * GitHub grants the job's token), its `if:` and its step's env evaluated by GitHub's expression
 * engine (@actions/expressions) on an event's context.
 */

interface Job {
  if: string;
  concurrency: { group: string; "cancel-in-progress": boolean; queue?: string };
  permissions: Permissions;
  steps: Array<{ env?: Record<string, string> }>;
}

const text = planCiInit({
  forge: "github",
  pins: { otto: "0.1.0", opencode: "1.18.33" },
  models: { primary: "mock/m1" },
  currentModel: undefined,
  opencodeEnv: new Map(),
  workflows: ["CI"],
  checkSuites: false,
  jobs: [],
}).files[0]!.text;
const job = (parse(text) as { jobs: { otto: Job } }).jobs.otto;

export const jobPermissions: Permissions = job.permissions;

function evaluate(expression: string, contexts: Record<string, unknown>): data.ExpressionData {
  const names = Object.keys(contexts);
  const expr = new Parser(new Lexer(expression).lex().tokens, names, []).parse();
  const dict = new data.Dictionary(
    ...names.map((key) => ({ key, value: JSON.parse(JSON.stringify(contexts[key]), data.reviver) as data.ExpressionData })),
  );
  return new Evaluator(expr, dict).evaluate();
}

/** Whether the job runs for `eventName` with `payload` in repository `repo` (with these repository variables). */
export function jobRuns(eventName: string, payload: unknown, repo: string, vars: Record<string, string> = {}): boolean {
  return truthy(evaluate(job.if, { github: { event_name: eventName, event: payload, repository: repo }, vars }));
}

/** The otto step's `name` variable, with these step outputs, repository variables and secrets. */
export function stepEnv(name: string, contexts: { steps?: unknown; vars?: unknown; secrets?: unknown }): string {
  const raw = job.steps.at(-1)?.env?.[name] ?? "";
  const match = /^\$\{\{ (.*) \}\}$/.exec(raw);
  if (!match) return raw;
  const value = evaluate(match[1]!, { steps: {}, vars: {}, secrets: {}, ...contexts });
  return value instanceof data.StringData ? value.value : "";
}

/**
 * GitHub's pending jobs of one concurrency group while a job of it runs: by default one (a newer
 * pending job replaces the older, which is dropped), with `queue: max` all of them, in order.
 * https://docs.github.com/en/actions/using-jobs/using-concurrency
 */
export function pendingJobs<T>(arrivals: readonly T[], concurrency: { queue?: string } = job.concurrency): T[] {
  return concurrency.queue === "max" ? [...arrivals] : arrivals.slice(-1);
}
