import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  assertPluginLoaded,
  slashCommand,
  text,
  toolCall,
  useE2E,
  type RecordedRequest,
  type Step,
  type Workspace,
} from "../../support/index.ts";
import { runOnBranch } from "../../support/fake-github/branch-runs.ts";
import { ottoCommand, ottoPr, useForges, type Forges } from "../pr/forges.ts";
import {
  BRANCH,
  PR_URL,
  BROKEN,
  FIXED,
  analysis,
  cloneOfPr,
  field,
  fixReview,
  isAnalysis,
  isFix,
  readDoc,
  summary,
} from "../pr/fix-script.ts";

/*
 * Only the PR's own failures get fixed: through real OpenCode (scripted model), fake GitHub and a
 * bare remote. A check that fails once and passes on otto's re-run opens no session and lands in
 * the flake ledger; the same failure on the default branch opens no session and says main is red;
 * a failure that reproduces in the sandbox is fixed as before, and a fix that hides it behind a
 * retry and a sleep is refused; `/otto-pr flakes` lists what happened.
 */

const LOG = [
  "2026-02-06T10:00:00.0000000Z ##[group]Run npm test",
  "2026-02-06T10:00:01.0000000Z FAIL test/math.test.js",
  "2026-02-06T10:00:01.0000000Z ● add › adds two numbers: expected 3, received -1",
  "2026-02-06T10:00:02.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");

/** A project whose `npm test` fails while add() subtracts. */
const NPM_PROJECT = {
  "package.json":
    JSON.stringify({ name: "app", private: true, type: "module", scripts: { test: "node test/math.test.js" } }, null, 2) + "\n",
  "test/math.test.js": 'import assert from "node:assert";\nimport { add } from "../src/math.js";\nassert.strictEqual(add(1, 2), 3);\n',
};

/** The test wrapped in a retry with a sleep: green more often, fixed never. */
const RETRIED = `import assert from "node:assert";
import { add } from "../src/math.js";
const retries = 3;
for (let i = 0; i < retries; i++) {
  try {
    assert.strictEqual(add(1, 2), 3);
    break;
  } catch (error) {
    if (i === retries - 1) throw error;
    await new Promise((r) => setTimeout(r, 100));
  }
}
`;

/**
 * A job log as GitHub Actions writes it: the runner's set-up, the step's `##[group]Run npm test`
 * header, 3,000 lines of output, the error at the end: the header is far above what trimming keeps.
 */
const LONG_LOG = [
  "##[group]Runner Image",
  "Image: ubuntu-24.04",
  "##[endgroup]",
  "##[group]Run actions/checkout@v4",
  "with:",
  "  fetch-depth: 1",
  "##[endgroup]",
  "##[group]Run npm test",
  "npm test",
  "shell: /usr/bin/bash -e {0}",
  "##[endgroup]",
  "> app@1.0.0 test",
  ...Array.from({ length: 3000 }, (_, i) => `  ok ${i} - suite ${Math.floor(i / 50)} case ${i % 50}`),
  "FAIL test/math.test.js",
  "● add › adds two numbers: expected 3, received -1 (a timing-dependent fixture)",
  "##[error]Process completed with exit code 1.",
]
  .map((l, i) => `2026-02-06T10:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.1234567Z ${l}`)
  .join("\n");

async function setup(
  e2e: ReturnType<typeof useE2E>,
  forges: () => Promise<Forges>,
  options: { flakes?: Record<string, unknown>; files?: Record<string, string>; log?: string } = {},
) {
  const f = await forges();
  const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
  f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit", conclusion: "failure", log: options.log ?? LOG }]);
  const config = f.ottoConfig({ models: { primary: "mock/m1" } });
  const ws = await e2e.workspace({
    userOttoConfig: { ...config, pr: { ...(config.pr as object), max_fix_attempts: 2, flakes: options.flakes ?? {} } },
    env: { ...f.env, npm_config_update_notifier: "false" },
    remote: true,
  });
  await cloneOfPr(ws, { files: { "src/math.js": BROKEN, ...options.files } });
  const { client } = await e2e.serve(ws);
  await assertPluginLoaded(client);
  e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
  expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");
  const head = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
  return { f, pr, ws, client, head };
}

/** Requests of the analysis, fix and review sessions: none for a failure that is not the PR's. */
const sessionRequests = (e2e: ReturnType<typeof useE2E>): RecordedRequest[] =>
  e2e.model.requests.filter((r) => isAnalysis(r) || isFix(r) || r.lastUser.includes("you review the fix independently"));

const write = (ws: Workspace, file: string, content: string, id: string): Step =>
  toolCall("write", { filePath: path.join(ws.project, file), content }, id);

describe("only the PR's own failures get fixed", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("a check that fails once and passes on otto's re-run opens no session and records a flake; /otto-pr flakes lists it", async () => {
    const { f, pr, ws, client, head } = await setup(e2e, forges, { flakes: { rerun: true } });
    const job = f.gh.state.checkRuns.find((r) => r.name === "unit")!;

    await ottoPr(client, "watch once");

    // The failed jobs were re-run (GitHub's POST …/rerun-failed-jobs on the job's workflow run), no model was asked.
    expect(f.gh.state.rerunRuns).toEqual([job.run_id]);
    expect(sessionRequests(e2e)).toEqual([]);
    expect(readDoc(ws)).toContain("unit not reproduced locally: re-ran the failed jobs of");
    expect(field(ws, "fix_attempts")).toBe("0");

    // The re-run passes on the same commit: the next poll records a flake.
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit" }]);
    await ottoPr(client, "watch once");

    const doc = readDoc(ws);
    expect(doc).toContain("### Flaky — ");
    expect(doc).toContain(
      "unit passed when otto re-ran the failed jobs of this commit: recorded as a flake, no fix session, no model call",
    );
    expect(sessionRequests(e2e)).toEqual([]);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(head);

    const flakes = await ottoPr(client, "flakes");
    expect(flakes).toContain("### github octo/app");
    expect(flakes).toContain("| 1 | `FAIL test/math.test.js` | unit |");
    expect(flakes).toContain(
      `[#1](${PR_URL}) ${pr.head.sha.slice(0, 7)} rerun ([run](https://github.com/octo/app/actions/runs/${job.run_id}/job/${job.id}))`,
    );
    const json = JSON.parse(await ottoPr(client, "flakes --json")) as { repositories: Array<{ repo: string; ranked: string[] }> };
    expect(json.repositories).toHaveLength(1);
    expect(json.repositories[0]?.repo).toBe("octo/app");

    // /otto-cost counts the verdict on a line of its own, apart from the spend (no fix here yet to price it by).
    e2e.model.script({ ...slashCommand("otto_cost")[0]!, times: Infinity }, { ...slashCommand("otto_cost")[1]!, times: Infinity });
    const cost = await ottoCommand(client, "otto-cost", "");
    expect(cost).toContain(
      "Saved by flake and inherited verdicts (an estimate, not part of the spend above): 1 verdict (1 flaky, 0 inherited), not priced yet",
    );
    const costJson = JSON.parse(await ottoCommand(client, "otto-cost", "--json")) as { saved?: Record<string, unknown> };
    expect(costJson.saved).toMatchObject({ estimate: true, verdicts: 1, flaky: 1, inherited: 0, unpriced: 1 });
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a check that failed on GitHub with a real-shaped long log and passes in the sandbox is a flake: no session, no model call", async () => {
    // The PR's code is right: `npm test` passes in otto's sandbox; the forge's failure was a flake.
    const { ws, client, head } = await setup(e2e, forges, { files: { ...NPM_PROJECT, "src/math.js": FIXED }, log: LONG_LOG });
    await ottoPr(client, "watch once");
    // The document first: when the sandboxed run did not pass, its failure names why.
    expect(readDoc(ws)).toContain("`npm test` passes in otto's sandbox");
    expect(sessionRequests(e2e)).toEqual([]);
    expect(field(ws, "fix_attempts")).toBe("0");
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(head);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("the same failure on the default branch opens no session: the PR's document and one notification say main is red", async () => {
    const { f, ws, client, head } = await setup(e2e, forges);
    // main's newest completed run fails the same way, on another runner and day.
    const main = runOnBranch(f.gh.state, {
      branch: "main",
      checks: [
        { name: "unit", conclusion: "failure", log: LOG.replace(/2026-02-06/g, "2026-02-05").replace("received -1", "received -2") },
      ],
    });

    await ottoPr(client, "watch once");

    expect(sessionRequests(e2e)).toEqual([]);
    const doc = readDoc(ws);
    expect(doc).toContain("### Inherited — ");
    expect(doc).toContain(
      `main is red: unit, since ${main.sha.slice(0, 7)}: main fails the same way, so this is not the PR's failure; no fix session`,
    );
    expect(field(ws, "status")).toBe("failed");
    expect(field(ws, "fix_attempts")).toBe("0");
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(head);
    // Otto asked GitHub for main's completed runs, then for the check on their commit.
    expect(
      f.gh.calls.some((c) => c.path === "/repos/octo/app/actions/runs" && c.query.branch === "main" && c.query.status === "completed"),
    ).toBe(true);
    const told = f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("main is red: unit"));
    expect(told).toHaveLength(1);

    // The next poll (main still red) neither notifies again nor starts a session.
    await ottoPr(client, "watch once");
    expect(f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("main is red: unit"))).toHaveLength(1);
    expect(sessionRequests(e2e)).toEqual([]);
    expect(await ottoPr(client, "flakes")).toContain(`- main is red: unit, since ${main.sha.slice(0, 7)}`);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a failure that reproduces in the sandbox is fixed as before; a fix that wraps the test in a retry and a sleep is refused", async () => {
    const { ws, client, head } = await setup(e2e, forges, { files: NPM_PROJECT });
    const told = (req: RecordedRequest): boolean => req.lastUser.includes("Otto refused the previous session's fix");
    const steps = (req: RecordedRequest): number => req.messages.filter((m) => m.role === "tool").length;
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts", "\n\n## Cause files\n- `src/math.js`: add() subtracts")),
      {
        label: "retries the test",
        times: Infinity,
        match: (req) => isFix(req) && !told(req),
        reply: (req): Step =>
          steps(req) === 0
            ? write(ws, "test/math.test.js", RETRIED, "call_retry")
            : text("The test is flaky; it retries now.\nFix summary: Retry flaky math test"),
      },
      {
        label: "told why: restores the test, fixes the code",
        times: Infinity,
        match: (req) => isFix(req) && told(req),
        reply: (req): Step =>
          [write(ws, "test/math.test.js", NPM_PROJECT["test/math.test.js"], "call_restore"), write(ws, "src/math.js", FIXED, "call_fix")][
            steps(req)
          ] ?? text("Restored the test; add() adds.\nFix summary: Add instead of subtract in add()"),
      },
    );

    await ottoPr(client, "fix");

    // The analysis heard that otto reproduced the failure in its sandbox.
    const analysed = e2e.model.requests.find(isAnalysis);
    expect(analysed?.lastUser).toContain("# What otto found before you");
    expect(analysed?.lastUser).toContain(
      "- unit: reproduced locally: `npm test` fails in otto's sandbox on the PR's head; first seen: not in the flake ledger",
    );
    const doc = readDoc(ws);
    expect(doc).toMatch(
      /### Attempt 1 — [\s\S]*- \*\*Result\*\*: refused, nothing committed or pushed: the fix weakens the checks instead of fixing the code \(test\/math\.test\.js: sleep, retry added to a test: it hides a flaky failure instead of fixing it\)/,
    );
    expect(doc).toContain("baseline: npm test: exit 1");
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(head);
    expect(log[0]?.subject).toBe("Add instead of subtract in add()");
    expect(await ws.repo.remoteFile("test/math.test.js", BRANCH)).toBe(NPM_PROJECT["test/math.test.js"]);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
