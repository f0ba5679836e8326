import { data, Evaluator, Lexer, Parser } from "@actions/expressions";
import { truthy } from "@actions/expressions/result";
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from "@actions/workflow-parser";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  ACTIONS,
  BOT_LOGIN,
  describeCiInit,
  TOKEN_KIND,
  GITHUB_WORKFLOW_FILE,
  planCiInit,
  renderGithubWorkflow,
  TIMEOUT_MINUTES,
  type CiInitPlanInput,
} from "../../../../src/pr/ci/init/index.ts";

const PINS = { otto: "0.1.0", opencode: "1.18.33" };

const input = (over: Partial<CiInitPlanInput> = {}): CiInitPlanInput => ({
  forge: "github",
  pins: PINS,
  models: { primary: "anthropic/claude-sonnet-4-5", secondary: "openai/gpt-5" },
  currentModel: undefined,
  opencodeEnv: new Map(),
  workflows: ["CI", "Lint & test"],
  checkSuites: false,
  jobs: [],
  ...over,
});

function workflow(over: Partial<CiInitPlanInput> = {}): string {
  const plan = planCiInit(input(over));
  expect(plan.files.map((f) => f.path)).toEqual([GITHUB_WORKFLOW_FILE]);
  return plan.files[0]?.text ?? "";
}

/**
 * Whether a job's `if:` runs for an event, by GitHub's own expression engine (`@actions/expressions`,
 * the workflow parser's own dependency, same version), with the `github` context of that event.
 */
function evaluate(condition: string, github: Record<string, unknown>, vars: Record<string, string> = {}): boolean {
  const expr = new Parser(new Lexer(condition).lex().tokens, ["github", "vars"], []).parse();
  const context = new data.Dictionary(
    { key: "github", value: JSON.parse(JSON.stringify(github), data.reviver) as data.ExpressionData },
    { key: "vars", value: JSON.parse(JSON.stringify(vars), data.reviver) as data.ExpressionData },
  );
  return truthy(new Evaluator(expr, context).evaluate());
}

/**
 * GitHub's own parser (the one behind the Actions editor): schema errors from parsing, expression
 * errors (`if:`, `${{ }}`) from converting, as strings.
 */
async function parserErrors(text: string): Promise<string[]> {
  const result = parseWorkflow({ name: GITHUB_WORKFLOW_FILE, content: text }, new NoOperationTraceWriter());
  if (result.value) await convertWorkflowTemplate(result.context, result.value);
  return [...new Set(result.context.errors.getErrors().map((e) => e.message))];
}

type Doc = {
  on: Record<string, { types?: string[]; workflows?: string[] } | null>;
  permissions: unknown;
  concurrency?: unknown;
  jobs: Record<
    string,
    {
      if: string;
      concurrency: { group: string; "cancel-in-progress": boolean; queue?: string };
      permissions: Record<string, string>;
      "timeout-minutes": number;
      steps: Array<{ id?: string; if?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> }>;
    }
  >;
};

describe("the GitHub workflow ci init writes", () => {
  it("passes GitHub's workflow parser with zero errors, with and without check_suite", async () => {
    expect(await parserErrors(workflow())).toEqual([]);
    expect(await parserErrors(workflow({ checkSuites: true }))).toEqual([]);
    expect(await parserErrors(workflow({ workflows: [] }))).toEqual([]);
  });

  it("the parser can fail: an unknown permission, a broken condition", async () => {
    const permission = workflow().replace("      actions: read", "      actions: read\n      bogus: write");
    expect((await parserErrors(permission)).join("\n")).toMatch(/Unexpected value 'bogus'/);
    const condition = workflow().replace("pull_requests[0] != null)", "pull_requests[0] != null");
    expect((await parserErrors(condition)).join("\n")).toMatch(/Unexpected end of expression/);
  });

  it("with pr.flakes.open_issue on, the job also gets issues: write, and the instructions say so; without it, no issues permission", async () => {
    const plan = planCiInit(input({ openIssues: true }));
    const doc = parse(plan.files[0]?.text ?? "") as Doc;
    expect(doc.jobs.otto?.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      checks: "read",
      statuses: "read",
      actions: "read",
      issues: "write",
    });
    expect(await parserErrors(plan.files[0]?.text ?? "")).toEqual([]);
    expect(describeCiInit(plan, "github", [])).toContain("issues: write");
    const without = planCiInit(input());
    expect((parse(without.files[0]?.text ?? "") as Doc).jobs.otto?.permissions).not.toHaveProperty("issues");
    expect(describeCiInit(without, "github", [])).not.toContain("issues: write");
  });

  it("actions: write only when pr.flakes.rerun is on (re-runs to tell a flake), on the job and the App token; actions: read otherwise", async () => {
    type Job = { permissions: Record<string, string>; steps: Array<{ id?: string; with?: Record<string, string> }> };
    const jobOf = (plan: ReturnType<typeof planCiInit>) => (parse(plan.files[0]?.text ?? "") as { jobs: { otto: Job } }).jobs.otto;
    const on = planCiInit(input({ rerun: true }));
    expect(jobOf(on).permissions.actions).toBe("write");
    expect(jobOf(on).steps.find((s) => s.id === "app-token")?.with?.["permission-actions"]).toBe("write");
    expect(await parserErrors(on.files[0]?.text ?? "")).toEqual([]);
    expect(describeCiInit(on, "github", [])).toContain("actions: write because pr.flakes.rerun is on");
    const off = planCiInit(input({ rerun: false }));
    expect(jobOf(off).permissions.actions).toBe("read");
    expect(jobOf(off).steps.find((s) => s.id === "app-token")?.with?.["permission-actions"]).toBe("read");
    expect(describeCiInit(off, "github", [])).toContain("actions: read: with pr.flakes.rerun off");
  });

  it("least privilege: nothing at the top, exactly five permissions on the job, never pull_request_target", () => {
    const text = workflow({ checkSuites: true });
    const doc = parse(text) as Doc;
    expect(doc.permissions).toEqual({});
    expect(Object.keys(doc.jobs)).toEqual(["otto"]);
    // statuses: the combined status of the head (read with the check runs); actions: read the failed jobs' logs.
    expect(doc.jobs.otto?.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      checks: "read",
      statuses: "read",
      actions: "read",
    });
    expect(text).not.toMatch(/pull_request_target/);
    expect(Object.keys(doc.on).sort()).toEqual([
      "check_suite",
      "issue_comment",
      "pull_request_review",
      "pull_request_review_comment",
      "workflow_run",
    ]);
  });

  it("listens to the named CI workflows' completed runs, and to comments and reviews as they are created", () => {
    const doc = parse(workflow()) as Doc;
    expect(doc.on.workflow_run).toEqual({ workflows: ["CI", "Lint & test"], types: ["completed"] });
    expect(doc.on.pull_request_review_comment).toEqual({ types: ["created"] });
    expect(doc.on.pull_request_review).toEqual({ types: ["submitted"] });
    expect(doc.on.issue_comment).toEqual({ types: ["created"] });
    // check_suite only when asked, or when the repository has no Actions workflow (CI reports from elsewhere).
    expect(doc.on.check_suite).toBeUndefined();
    expect((parse(workflow({ workflows: [] })) as Doc).on.check_suite).toEqual({ types: ["completed"] });
  });

  it("skips fork PRs and bots in the job's condition: evaluated by GitHub's own expression engine on each event", () => {
    const repo = { full_name: "octo/app" };
    const fork = { full_name: "stranger/app" };
    const user = { type: "User", login: "maintainer" };
    const bot = { type: "Bot", login: "otto[bot]" };
    const failedRun = (head = repo, pulls: unknown[] = [{ number: 1 }], conclusion = "failure") => ({
      event_name: "workflow_run",
      event: { workflow_run: { conclusion, head_repository: head, pull_requests: pulls }, sender: user },
    });
    const review = (name: string, head = repo, sender = user, association = "MEMBER") => ({
      event_name: name,
      event: {
        pull_request: { head: { repo: head } },
        comment: { author_association: association },
        review: { author_association: association, body: "Please rename add()." },
        sender,
      },
    });
    const comment = (
      body: string,
      sender = user,
      pr: unknown = { url: "https://api.github.com/repos/octo/app/pulls/1" },
      association = "COLLABORATOR",
    ) => ({
      event_name: "issue_comment",
      event: { issue: { number: 1, ...(pr ? { pull_request: pr } : {}) }, comment: { body, author_association: association }, sender },
    });
    const suite = (slug: string, conclusion = "failure") => ({
      event_name: "check_suite",
      event: { check_suite: { conclusion, app: { slug }, pull_requests: [{ number: 1 }] }, sender: user },
    });
    const runs = (condition: string, event: Record<string, unknown>) => evaluate(condition, { repository: "octo/app", ...event });

    for (const checkSuites of [false, true]) {
      const condition = (parse(workflow({ checkSuites })) as Doc).jobs.otto?.if ?? "";
      // Work otto does: a failed run of a PR of this repository, a reviewer's comment or review, a request.
      expect(runs(condition, failedRun())).toBe(true);
      expect(runs(condition, review("pull_request_review_comment"))).toBe(true);
      expect(runs(condition, review("pull_request_review"))).toBe(true);
      expect(runs(condition, comment("/otto fix"))).toBe(true);
      expect(runs(condition, suite("circleci"))).toBe(checkSuites);
      // Skipped: forks (a fork's run has no pull_requests, and its head is elsewhere even if it had), bots, the rest.
      expect(runs(condition, failedRun(fork, []))).toBe(false);
      expect(runs(condition, failedRun(fork))).toBe(false);
      expect(runs(condition, failedRun(repo, []))).toBe(false);
      expect(runs(condition, failedRun(repo, [{ number: 1 }], "success"))).toBe(false);
      expect(runs(condition, review("pull_request_review_comment", fork))).toBe(false);
      expect(runs(condition, review("pull_request_review", fork))).toBe(false);
      expect(runs(condition, review("pull_request_review", repo, bot))).toBe(false);
      expect(runs(condition, comment("/otto fix", bot))).toBe(false);
      expect(runs(condition, comment("looks good"))).toBe(false);
      // Outsiders start nothing, and only a comment that starts with the command does.
      expect(runs(condition, comment("/otto fix", user, undefined, "NONE"))).toBe(false);
      expect(runs(condition, comment("/otto fix", user, undefined, "CONTRIBUTOR"))).toBe(false);
      expect(runs(condition, comment("/otto fix", user, undefined, "OWNER"))).toBe(true);
      expect(runs(condition, comment("please /otto fix this"))).toBe(false);
      expect(runs(condition, review("pull_request_review_comment", repo, user, "NONE"))).toBe(false);
      expect(runs(condition, review("pull_request_review", repo, user, "FIRST_TIME_CONTRIBUTOR"))).toBe(false);
      expect(runs(condition, comment("/otto fix", user, null))).toBe(false);
      expect(runs(condition, suite("github-actions"))).toBe(false);
      expect(runs(condition, suite("circleci", "success"))).toBe(false);
    }
    // The evaluation can fail: without its head check, a fork's run that names a PR would start the job.
    const condition = (parse(workflow()) as Doc).jobs.otto?.if ?? "";
    const loose = condition.replace("&& github.event.workflow_run.head_repository.full_name == github.repository", "");
    expect(loose).not.toBe(condition);
    expect(runs(loose, failedRun(fork))).toBe(true);
  });

  it("a machine account's own comments and reviews, and reviews without a body, start no job", () => {
    const condition = (parse(workflow()) as Doc).jobs.otto?.if ?? "";
    const repo = { full_name: "octo/app" };
    const event = (name: string, login: string, body: string | null = "please rename") => ({
      repository: "octo/app",
      event_name: name,
      event: {
        pull_request: { head: { repo } },
        issue: { number: 1, pull_request: { url: "https://api.github.com/repos/octo/app/pulls/1" } },
        comment: { author_association: "MEMBER", body: `/otto answer ${body ?? ""}` },
        review: { author_association: "MEMBER", body },
        sender: { type: "User", login },
      },
    });
    const vars = { OTTO_BOT_LOGIN: "otto-machine" };
    for (const name of ["pull_request_review_comment", "pull_request_review", "issue_comment"]) {
      // otto replies through POST …/comments/{id}/replies, which fires pull_request_review_comment.
      expect(evaluate(condition, event(name, "otto-machine"), vars), name).toBe(false);
      expect(evaluate(condition, event(name, "maintainer"), vars), name).toBe(true);
      // Without the variable (the App's or the job's token: otto writes as a Bot) people still start it.
      expect(evaluate(condition, event(name, "maintainer")), name).toBe(true);
    }
    // An approval without a body (null in the payload) or with an empty one has nothing to answer.
    expect(evaluate(condition, event("pull_request_review", "maintainer", null))).toBe(false);
    expect(evaluate(condition, event("pull_request_review", "maintainer", ""))).toBe(false);
  });

  it("a scoped App token: exactly the job's permissions as permission-* inputs, never workflows", () => {
    for (const openIssues of [false, true]) {
      type Job = { permissions: Record<string, string>; steps: Array<{ id?: string; with?: Record<string, string> }> };
      const job = (parse(workflow({ openIssues })) as { jobs: { otto: Job } }).jobs.otto;
      const inputs = job.steps.find((s) => s.id === "app-token")?.with ?? {};
      const scoped = Object.fromEntries(
        Object.entries(inputs)
          .filter(([k]) => k.startsWith("permission-"))
          .map(([k, v]) => [k.slice("permission-".length), v]),
      );
      expect(scoped).toEqual(job.permissions);
      expect(scoped.workflows).toBeUndefined();
    }
  });

  it("one concurrency group per PR across events, on the job (a skipped event never joins), never cancelled halfway", () => {
    const doc = parse(workflow()) as Doc;
    expect(doc.concurrency).toBeUndefined();
    const concurrency = doc.jobs.otto?.concurrency;
    expect(concurrency?.["cancel-in-progress"]).toBe(false);
    // Every pending job kept (GitHub's default keeps one per group); GitHub's parser accepts the key (above).
    expect(concurrency?.queue).toBe("max");
    expect(concurrency?.group).toBe(
      "otto-pr-${{ github.event.workflow_run.pull_requests[0].number || github.event.check_suite.pull_requests[0].number || github.event.pull_request.number || github.event.issue.number || github.run_id }}",
    );
  });

  it("pins actions by commit, OpenCode and otto by version, and sets a timeout", () => {
    const job = (parse(workflow()) as Doc).jobs.otto;
    expect(job?.["timeout-minutes"]).toBe(TIMEOUT_MINUTES);
    const uses = (job?.steps ?? []).flatMap((s) => (s.uses ? [s.uses] : []));
    expect(uses).toEqual([ACTIONS.appToken.split(" ")[0], ACTIONS.checkout.split(" ")[0], ACTIONS.setupNode.split(" ")[0]]);
    for (const u of uses) expect(u).toMatch(/@[0-9a-f]{40}$/);
    const runs = (job?.steps ?? []).map((s) => s.run ?? "").join("\n");
    expect(runs).toContain("npm install --global --no-audit --no-fund opencode-ai@1.18.33 opencode-otto@0.1.0");
    expect(runs).toContain("opencode run --command otto-pr -- ci");
    // No token stored in .git/config: otto's git gets it from a helper reading GITHUB_TOKEN.
    // The default branch whatever the event: OpenCode starts on trusted config, never on a PR's merge commit.
    // The App token is minted only when an App is configured.
    expect(job?.steps[0]).toMatchObject({ id: "app-token", if: "vars.OTTO_APP_ID != ''" });
    // setup-node saves no package cache: one saved after a PR's code ran would reach the default branch.
    expect(job?.steps[2]?.with).toEqual({ "node-version": 22, "package-manager-cache": false });
    expect(job?.steps[1]?.with).toEqual({
      ref: "${{ github.event.repository.default_branch }}",
      "fetch-depth": 0,
      "persist-credentials": false,
    });
    expect(runs).toContain(
      `git config --global credential."$GITHUB_SERVER_URL".helper '!f() { test "$1" = get && echo username=x-access-token && echo "password=$GITHUB_TOKEN"; }; f'`,
    );
  });

  it("passes each model provider's key from secrets, and the optional OTTO_GITHUB_TOKEN", () => {
    const job = (parse(workflow()) as Doc).jobs.otto;
    const env = job?.steps.at(-1)?.env ?? {};
    expect(env).toEqual({
      GITHUB_TOKEN: "${{ steps.app-token.outputs.token || secrets.OTTO_GITHUB_TOKEN || github.token }}",
      OTTO_GITHUB_BOT_LOGIN: BOT_LOGIN,
      OTTO_GITHUB_TOKEN_KIND: TOKEN_KIND,
      ANTHROPIC_API_KEY: "${{ secrets.ANTHROPIC_API_KEY }}",
      OPENAI_API_KEY: "${{ secrets.OPENAI_API_KEY }}",
    });
    const configure = job?.steps.find((s) => s.env?.OPENCODE_CONFIG_JSON)?.env ?? {};
    expect(JSON.parse(configure.OPENCODE_CONFIG_JSON ?? "")).toEqual({
      autoupdate: false,
      share: "disabled",
      model: "anthropic/claude-sonnet-4-5",
    });
    expect(JSON.parse(configure.OTTO_CONFIG_JSON ?? "")).toEqual({
      models: { primary: "anthropic/claude-sonnet-4-5", secondary: "openai/gpt-5" },
      sandbox: "required",
    });
    // The sandbox is installed before otto runs, and otto refuses to run without it.
    const runs = (job?.steps ?? []).map((s) => s.run ?? "");
    const sandbox = runs.findIndex((r) => r.includes("apt-get install -y -qq --no-install-recommends bubblewrap"));
    expect(sandbox).toBeGreaterThan(-1);
    expect(sandbox).toBeLessThan(runs.indexOf("opencode run --command otto-pr -- ci"));
  });

  it("a workflow name is YAML-quoted: quotes and colons stay one name", () => {
    const doc = parse(
      renderGithubWorkflow({
        pins: PINS,
        setup: { model: "a/b", models: {} },
        workflows: ['Build: "all"'],
        checkSuites: false,
        secrets: [],
        secretNotes: [],
      }),
    ) as Doc;
    expect(doc.on.workflow_run?.workflows).toEqual(['Build: "all"']);
  });
});

describe("what ci init github says", () => {
  it("lists the job's permissions as written, the App or machine-account token, and a Dependabot entry for the pinned actions", () => {
    const plan = planCiInit(input());
    const text = describeCiInit(plan, "github", []);
    expect(text).toContain("contents: write, pull-requests: write, checks: read, statuses: read, actions: read");
    expect(text).toContain("`OTTO_APP_ID`");
    expect(text).toContain("machine account");
    const dependabot = text.split("\n").filter((l) => l.startsWith("       "));
    expect(parse(dependabot.map((l) => l.slice(7)).join("\n"))).toEqual({
      version: 2,
      updates: [{ "package-ecosystem": "github-actions", directory: "/", schedule: { interval: "weekly" } }],
    });
  });
});
