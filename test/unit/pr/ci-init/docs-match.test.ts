import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PACKAGE_ROOT } from "../../../../src/core/index.ts";
import {
  AZURE_COMMENTS_FILE,
  AZURE_JOB_FILE,
  AZURE_TIMEOUT_MINUTES,
  jobPermissions,
  planCiInit,
  TRUSTED_ASSOCIATIONS,
  type CiInitPlanInput,
} from "../../../../src/pr/ci/init/index.ts";

/*
 * docs/ci.md states what the generated CI files hold (the table "What the files hold, and why" and
 * the Azure paragraphs after it). The facts it states in code spans are read from the doc here and
 * compared with the files `ci init` generates, so the two cannot drift apart.
 */

const DOC = fs.readFileSync(path.join(PACKAGE_ROOT, "docs/ci.md"), "utf8");

const base: CiInitPlanInput = {
  forge: "github",
  pins: { otto: "0.1.0", opencode: "1.18.33" },
  models: { primary: "anthropic/claude-sonnet-4-5" },
  opencodeEnv: new Map(),
  workflows: ["CI"],
  checkSuites: false,
  jobs: ["Build"],
};

type Step = { id?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string>; target?: unknown; script?: string };
type GithubJob = {
  if: string;
  concurrency: Record<string, unknown>;
  permissions: Record<string, string>;
  "timeout-minutes": number;
  steps: Step[];
};
const github = (over: Partial<CiInitPlanInput> = {}) => {
  const doc = parse(planCiInit({ ...base, ...over }).files[0]!.text) as {
    on: Record<string, { types?: string[] }>;
    permissions: unknown;
    jobs: { otto: GithubJob };
  };
  return { doc, job: doc.jobs.otto };
};
type AzureJob = { condition?: string; timeoutInMinutes: number; pool: { vmImage: string }; steps: Step[] };
const azure = () => {
  const files = planCiInit({ ...base, forge: "azure" }).files;
  const read = (name: string) => parse(files.find((f) => f.path === name)!.text) as Record<string, unknown> & { jobs: AzureJob[] };
  return { job: read(AZURE_JOB_FILE), comments: read(AZURE_COMMENTS_FILE) };
};

/** The cells of the GitHub table's row whose first cell is `name` (code spans kept). */
function row(name: string): { what: string; why: string } {
  const line = DOC.split("\n").find((l) => l.startsWith(`| ${name} |`));
  if (!line) throw new Error(`docs/ci.md has no row ${name}`);
  const [, what = "", why = ""] = line.replace(/ \|$/, "").split(" | ");
  return { what, why };
}
/** The code spans of a text, in order; a span may run over a line break. */
const spans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\s*\n\s*/g, " "));
/** `key: value` spans as a record. */
const pairs = (list: string[]): Record<string, string> =>
  Object.fromEntries(list.filter((s) => /^[\w-]+: [\w-]+$/.test(s)).map((s) => s.split(": ") as [string, string]));
const squash = (text: string) => text.replace(/\s+/g, " ").trim();

describe("docs/ci.md states what the generated files hold", () => {
  it("the job's permissions, by default and with each option the doc names", () => {
    const { what } = row("`permissions`");
    const [plain, options = ""] = what.split("nothing else");
    expect(spans(plain!)[0]).toBe("{}");
    expect(github().doc.permissions).toEqual({});
    expect(pairs(spans(plain!))).toEqual(github().job.permissions);
    expect(github().job.permissions).toEqual(jobPermissions());
    // "`actions: write` instead with `pr.flakes.rerun`", "`issues: write` added with `pr.flakes.open_issue`".
    const withRerun = /`(\w+): (\w+)` instead with `pr\.flakes\.rerun`/.exec(options);
    const withIssues = /`(\w+): (\w+)` added with `pr\.flakes\.open_issue`/.exec(options);
    expect(withRerun && withIssues, "the doc names what each option adds").toBeTruthy();
    expect(github({ rerun: true }).job.permissions).toEqual({ ...jobPermissions(), [withRerun![1]!]: withRerun![2] });
    expect(github({ openIssues: true }).job.permissions).toEqual({ ...jobPermissions(), [withIssues![1]!]: withIssues![2] });
  });

  it("the App token's permission-* inputs", () => {
    const { what } = row("App token");
    const [plain, options = ""] = what.split(/\(`permission-actions: write`/);
    const inputs = (job: GithubJob) =>
      Object.fromEntries(
        Object.entries(job.steps.find((s) => s.id === "app-token")?.with ?? {}).filter(([k]) => k.startsWith("permission-")),
      );
    expect(pairs(spans(plain!))).toEqual(inputs(github().job));
    expect(options).toContain("with `pr.flakes.rerun`");
    expect(inputs(github({ rerun: true }).job)["permission-actions"]).toBe("write");
    expect(spans(options)).toContain("permission-issues: write");
    expect(inputs(github({ openIssues: true }).job)["permission-issues"]).toBe("write");
  });

  it("the triggers, each with its types; check_suite only with --check-suite", () => {
    const { what } = row("triggers");
    const stated: Record<string, string[]> = {};
    for (const s of spans(what)) {
      const m = /^(\w+)(?:: (\w+))?$/.exec(s);
      if (m) stated[m[1]!] = m[2] ? [m[2]] : [];
      const types = /^types: \[(\w+)\]$/.exec(s);
      if (types) stated.workflow_run = [types[1]!];
    }
    const on = (over: Partial<CiInitPlanInput>) =>
      Object.fromEntries(Object.entries(github(over).doc.on).map(([k, v]) => [k, v?.types ?? []]));
    expect(on({ checkSuites: true })).toEqual(stated);
    expect(on({})).toEqual(Object.fromEntries(Object.entries(stated).filter(([k]) => k !== "check_suite")));
  });

  it("the job's if: every condition the doc quotes is in it, and the roles it names", () => {
    const { what } = row("job `if:`");
    const condition = github({ checkSuites: true }).job.if;
    const quoted = spans(what).filter((s) => /[!=]=/.test(s));
    expect(quoted.length).toBeGreaterThanOrEqual(4);
    for (const q of quoted) expect(condition, q).toContain(q);
    const roles = spans(what).filter((s) => /^[A-Z]+$/.test(s));
    expect(roles).toEqual([...TRUSTED_ASSOCIATIONS]);
    expect(condition).toContain(`fromJSON('${JSON.stringify(roles)}')`);
    // Comments only when they start with the command's prefix.
    expect(what).toContain("*start* with `/otto `");
    expect(condition).toContain("startsWith(github.event.comment.body, '/otto ')");
  });

  it("the concurrency block and the timeout", () => {
    const { what } = row("`concurrency`");
    const stated = spans(what);
    const { concurrency } = github().job;
    expect(String(concurrency.group)).toMatch(new RegExp(`^${stated[0]!.replace("<PR number>", "")}\\$\\{\\{ `));
    expect(pairs(stated)).toEqual({ "cancel-in-progress": String(concurrency["cancel-in-progress"]), queue: concurrency.queue });
    expect(Number(row("`timeout-minutes`").what)).toBe(github().job["timeout-minutes"]);
  });

  it("the checkout, setup-node and credentials rows", () => {
    const steps = github().job.steps;
    const checkout = steps.find((s) => s.uses?.startsWith("actions/checkout@"))!;
    const ref = spans(row("checkout").what)[0]!;
    expect(ref).toBe(`ref: ${String(checkout.with?.ref)}`);
    expect(spans(row("credentials").what)[0]).toBe(`persist-credentials: ${String(checkout.with?.["persist-credentials"])}`);
    const node = steps.find((s) => s.uses?.startsWith("actions/setup-node@"))!;
    expect(spans(row("setup-node").what)).toEqual([`package-manager-cache: ${String(node.with?.["package-manager-cache"])}`]);
  });

  it("Azure: the job's condition, pool, timeout, event, the otto step's target, the comment pipeline's webhook filter, lock and payload", () => {
    const { job, comments } = azure();
    const otto = job.jobs[0]!;
    const condition = /`condition: ([^`]+)`/.exec(DOC)?.[1];
    expect(squash(condition ?? "")).toBe(otto.condition);
    expect(DOC).toContain(`on \`${otto.pool.vmImage}\``);
    expect(DOC).toContain(`\`timeoutInMinutes: ${AZURE_TIMEOUT_MINUTES}\``);
    expect(otto.timeoutInMinutes).toBe(AZURE_TIMEOUT_MINUTES);
    const step = otto.steps.find((s) => s.target)!;
    expect(DOC).toContain(`\`OTTO_CI_EVENT=${step.env?.OTTO_CI_EVENT}\``);
    const target = /`target: \{ commands: (\w+), settableVariables: (\w+) \}`/.exec(DOC);
    expect(step.target).toEqual({ commands: target?.[1], settableVariables: target?.[2] });
    // Where the doc says what the comment pipeline holds (not where it names the alternative).
    for (const said of [/in order \(`lockBehavior: (\w+)`\)/, /the comment pipeline's `lockBehavior: (\w+)`/])
      expect(said.exec(DOC)?.[1], String(said)).toBe(comments.lockBehavior);
    const webhook = (comments.resources as { webhooks: Array<{ webhook: string; filters: Array<{ value: string }> }> }).webhooks[0]!;
    expect(DOC).toContain(`webhook resource\n\`${webhook.webhook}\` (filtered to \`${webhook.filters[0]!.value}\`)`);
    const payload = /\(`(\$\{\{ replace\(convertToJson[^`]+)`\)/.exec(DOC)?.[1];
    const ottoStep = comments.jobs[0]!.steps.find((s) => s.target)!;
    expect(ottoStep.env?.OTTO_EVENT_PAYLOAD).toBe(payload);
    expect(comments.trigger).toBe("none");
    expect(comments.pr).toBe("none");
    // The credential helper and the identity read the token the doc names.
    const configure = otto.steps.find((s) => s.env?.OTTO_CONFIG_JSON)!;
    const token = /reading `(\$\{OTTO_ADO_PAT:-\$SYSTEM_ACCESSTOKEN\})`/.exec(DOC)?.[1];
    expect(configure.script).toContain(`echo "password=${token}"`);
    expect(configure.script).toContain("_apis/connectionData");
    expect(configure.env?.SYSTEM_ACCESSTOKEN).toBe("$(System.AccessToken)");
  });

  it("can fail: a permission the doc states that the file does not hold is found", () => {
    const drifted = DOC.replace("`actions: read`, nothing else", "`actions: write`, nothing else");
    const line = drifted.split("\n").find((l) => l.startsWith("| `permissions` |"))!;
    const stated = pairs(spans(line.split("nothing else")[0]!));
    expect(stated).not.toEqual(github().job.permissions);
  });
});
