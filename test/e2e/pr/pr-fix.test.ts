import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, assertPluginLoaded, text, toolCall, useE2E } from "../../support/index.ts";
import { ottoPr, useForges, type Forges } from "../pr/forges.ts";
import {
  BRANCH,
  PR_URL,
  KEY,
  BROKEN,
  FIXED,
  readDoc,
  field,
  cloneOfPr,
  pushBehindOttosBack,
  isAnalysis,
  isFix,
  isConflict,
  followUp,
  summary,
  analysis,
  fixer,
  fixReview,
  isFixReview,
} from "../pr/fix-script.ts";

/*
 * The fix flow end to end: real OpenCode loading otto, the scripted model answering the analysis,
 * fix and conflict sessions, fake GitHub with a red check and its job log, and the project as a
 * clone of "https://github.com/octo/app" whose pushes land in a bare repository on disk
 * (url.<bare>.insteadOf), so otto's pushes can be checked in the remote.
 */

const PLANTED = "ghp_plantedSecretToken0123456789abcdefXYZ";
const JOB_LOG = [
  ...Array.from({ length: 300 }, (_, i) => `2026-02-06T10:00:${String(i % 60).padStart(2, "0")}.0000000Z npm install progress ${i}`),
  "2026-02-06T10:01:00.0000000Z FAIL test/math.test.js",
  "2026-02-06T10:01:00.0000000Z   ● add › adds two numbers: expected 3, received -1",
  ...Array.from({ length: 200 }, (_, i) => `2026-02-06T10:02:00.0000000Z teardown ${i}`),
  "2026-02-06T10:03:00.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");

async function setup(e2e: ReturnType<typeof useE2E>, forges: () => Promise<Forges>, maxAttempts = 3) {
  const f = await forges();
  const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
  f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit", conclusion: "failure", log: JOB_LOG }]);
  const config = f.ottoConfig({ models: { primary: "mock/m1" } });
  const ws = await e2e.workspace({
    userOttoConfig: { ...config, pr: { ...(config.pr as object), max_fix_attempts: maxAttempts } },
    env: f.env,
    remote: true,
  });
  await cloneOfPr(ws);
  const { client } = await e2e.serve(ws);
  await assertPluginLoaded(client);
  e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
  expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");
  return { f, pr, ws, client };
}

/** Every request otto sent to the fake GitHub (API and log storage), as text. */
const sentToGithub = (f: Forges): string => JSON.stringify([...f.gh.calls, ...f.gh.blobCalls].map((c) => [c.path, c.query, c.body]));

describe("PR fix flow through real OpenCode, fake GitHub and a bare remote", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("watch once: red check → log fetched → summary → the model edits → commit fast-forwarded to the PR branch → Fix History", async () => {
    const { f, ws, client } = await setup(e2e, forges);
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts", `\n\nA token in the log: ${PLANTED}`)),
      fixer(ws, FIXED),
    );

    const once = await ottoPr(client, "watch once");
    expect(once).toContain(`| ${KEY} |`);

    // The log was downloaded (through the 302 to the log storage) and the session read the trimmed copy.
    const job = f.gh.state.checkRuns.find((r) => r.name === "unit")!;
    expect(f.gh.calls.some((c) => c.path.endsWith(`/actions/jobs/${job.id}/logs`))).toBe(true);
    expect(f.gh.blobCalls.some((c) => c.path.endsWith(`/job-logs/${job.id}`))).toBe(true);
    const read = e2e.model.requests.find((r) => isAnalysis(r) && followUp(r));
    expect(read?.toolResults[0]?.content).toContain("FAIL test/math.test.js");
    expect(read?.toolResults[0]?.content).toMatch(/lines skipped/);
    expect(read?.toolResults[0]?.content).not.toContain("npm install progress 100");
    // The analysis ran read-only, the fix as the executor; both sessions were deleted.
    expect(e2e.model.requests.find(isAnalysis)?.system).toContain("You are a rigorous, independent reviewer");
    expect(e2e.model.requests.find(isFix)?.system).toContain("You are an executor working for Otto");
    expect(e2e.model.requests.find(isFix)?.lastUser).toContain("expected 3, received -1");
    expect(e2e.model.requests.find(isFix)?.lastUser).toMatch(/<(untrusted-[0-9a-f]+) label="pr description">\nWhat this changes\.\n<\/\1>/);

    // One fast-forward commit on the PR branch in the remote, with the fix and otto's trailer.
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(before);
    expect(log[0]?.subject).toBe("Add instead of subtract in add()");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(await ws.repo.gitRemote(["log", "-1", "--format=%B", BRANCH])).toContain(`Otto-Fix: ${KEY} attempt 1`);
    // The logs stay out of the commit and out of the worktree; the record is kept in the data dir.
    expect(await ws.repo.gitRemote(["ls-tree", "-r", "--name-only", BRANCH])).not.toContain(".otto");
    expect(fs.existsSync(path.join(ws.project, ".otto", "pr-logs", KEY))).toBe(false);
    expect(fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "prs", KEY, "logs", "01-unit.log"), "utf8")).toContain(
      "##[error]Process completed with exit code 1.",
    );

    // The document: attempt counted, Fix History with trigger, verdict, commit and summary; status watching.
    const doc = readDoc(ws);
    expect(field(ws, "status")).toBe("watching");
    expect(field(ws, "fix_attempts")).toBe("1");
    expect(field(ws, "fix_sha")).toBe(log[0]?.sha);
    expect(doc).toContain("### Attempt 1 — ");
    expect(doc).toContain("- **Trigger**: watcher: pipeline failed on");
    expect(doc).toContain("- **Verdict**: code");
    expect(doc).toContain(`- **Commit**: \`${log[0]?.sha}\``);
    // The project has no checks (none configured, none detected): the record says so.
    expect(doc).toContain("- **Result**: pushed to feature/1: Add instead of subtract in add() (pushed without local checks: none found)");
    expect(doc).toMatch(/failed → fixing \(watcher\): unit on /);
    expect(doc).not.toContain(PLANTED);
    expect(doc).toContain("[REDACTED]");
    expect(sentToGithub(f)).not.toContain(PLANTED);
    expect(await ottoPr(client, "log")).toContain("### Attempt 1");
    // Only the sessions of the /otto-pr commands are left: the analysis and fix sessions were deleted.
    const sessions = (await client.session.list({ throwOnError: true })).data;
    expect(sessions.map((s) => s.title).filter((t) => t.startsWith("otto-pr "))).toHaveLength(3);
    expect(sessions.filter((s) => !s.title.startsWith("otto-pr "))).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("INFRASTRUCTURE: the failed jobs are re-run once per head SHA, no attempt counted; the second time a person is notified", async () => {
    const { f, ws, client } = await setup(e2e, forges);
    e2e.model.script(analysis(ws, summary("infrastructure: the runner lost its network")));

    const first = await ottoPr(client, "fix");
    expect(first).toContain("(rerun)");
    expect(first).toContain("Re-ran the failed jobs of 1 workflow run(s).");
    expect(f.gh.state.rerunRuns).toEqual([f.gh.state.checkRuns.find((r) => r.name === "unit")!.run_id]);
    expect(field(ws, "fix_attempts")).toBe("0");
    expect(field(ws, "status")).toBe("watching");
    expect(readDoc(ws)).toContain("### Re-run — ");
    expect(e2e.model.requests.some(isFix)).toBe(false);

    // The re-run failed the same way on the same commit: no second re-run, a person is asked.
    const second = await ottoPr(client, "fix");
    expect(second).toContain("(human)");
    expect(f.gh.state.rerunRuns).toHaveLength(1);
    expect(field(ws, "fix_attempts")).toBe("0");
    expect(field(ws, "status")).toBe("failed");
    const hook = f.hooks.calls.find((c) => (c.body as { event?: string }).event === "human_needed");
    expect(hook?.body).toMatchObject({ event: "human_needed", url: PR_URL });
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("gives up after max_fix_attempts: exactly one comment, a notification, and nothing posted carries the planted token", async () => {
    const { f, ws, client } = await setup(e2e, forges, 2);
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts", `\n- **Seen in the log**: GITHUB_TOKEN=${PLANTED}`)),
      // The fix sessions change nothing (and leak the token in their answer).
      {
        label: "fix (no change)",
        times: Infinity,
        match: isFix,
        reply: text(`I could not find it. The token is ${PLANTED}.\nTASK_FAILED: cannot reproduce with ${PLANTED}`),
      },
    );
    const out = await ottoPr(client, "fix");
    expect(out).toContain("(gave_up)");
    expect(e2e.model.requests.filter((r) => isFix(r) && !followUp(r))).toHaveLength(2);
    expect(field(ws, "fix_attempts")).toBe("2");
    expect(field(ws, "status")).toBe("failed");
    expect(f.gh.state.comments.map((c) => c.body)).toEqual([expect.stringContaining("otto: giving up after 2 attempts")]);
    const comment = f.gh.state.comments[0]!.body;
    expect(comment).toContain("<!-- otto -->");
    expect(comment).toContain("[REDACTED]");
    expect(f.hooks.calls.filter((c) => (c.body as { event?: string }).event === "pr_gave_up")).toHaveLength(1);

    // Later polls and commands do not give up twice.
    await ottoPr(client, "watch once");
    f.gh.state.pushCommit(f.gh.state.prs[0]!);
    f.gh.state.setChecks(f.gh.state.prs[0]!, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    await ottoPr(client, "watch once");
    expect(await ottoPr(client, "fix")).toContain("otto gave up on");
    expect(f.gh.state.comments).toHaveLength(1);
    expect(readDoc(ws)).toMatch(/### Gave up — /);
    expect(readDoc(ws)).not.toContain(PLANTED);
    expect(sentToGithub(f)).not.toContain(PLANTED);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("pr.verify: a fix that fails otto's checks is not pushed; the next session sees why and its fix is pushed", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const config = f.ottoConfig({ models: { primary: "mock/m1" } });
    // Passes on the PR's tree before the fix (the baseline) and fails on the first fix's `a * b`: a new failure.
    const verify = ["! grep -q 'a \\* b' src/math.js || (echo 'add() still does not add'; exit 3)"];
    const ws = await e2e.workspace({ userOttoConfig: { ...config, pr: { ...(config.pr as object), verify } }, env: f.env, remote: true });
    await cloneOfPr(ws);
    const { client } = await e2e.serve(ws);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    await ottoPr(client, `add ${PR_URL}`);
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, "export const add = (a, b) => a * b;\n", { times: 2 }),
      fixer(ws, FIXED),
    );
    const out = await ottoPr(client, "fix");
    expect(out).toContain("(pushed)");
    expect(out).toContain("Attempt 2/5: pushed");
    const fixes = e2e.model.requests.filter((r) => isFix(r) && !followUp(r));
    expect(fixes).toHaveLength(2);
    expect(fixes[0]?.lastUser).not.toContain("otto's checks failed on them");
    expect(fixes[1]?.lastUser).toContain("otto's checks failed on them");
    expect(fixes[1]?.lastUser).toContain("(exit 3)\nadd() still does not add");
    expect(fixes[1]?.lastUser).toContain("### Attempt 1");
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(before);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    const doc = readDoc(ws);
    expect(doc).toMatch(/### Attempt 1 — [^\n]+\n(- [^\n]+\n)*- \*\*Result\*\*: pr\.verify failed, nothing pushed: ! grep -q/);
    expect(doc).toContain("### Attempt 2 — ");
    expect(field(ws, "fix_attempts")).toBe("2");
  });

  it("the secondary model rejects the first fix: a fresh fix session gets its reasons, the second pass is approved and pushed", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const ws = await e2e.workspace({
      userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1", secondary: "mock/m2" } }),
      env: f.env,
      remote: true,
    });
    await cloneOfPr(ws);
    const { client } = await e2e.serve(ws);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    await ottoPr(client, `add ${PR_URL}`);
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    const reason = "src/math.js: add() multiplies now; make it add";
    e2e.model.script(
      fixReview("REJECT", { times: 1, reasons: [reason] }),
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, "export const add = (a, b) => a * b;\n", { times: 2 }),
      fixer(ws, FIXED),
    );
    const out = await ottoPr(client, "fix");
    expect(out).toContain("Attempt 1/5: pushed");
    expect(out).toContain("reviewed by mock/m2: approved");
    // The review ran read-only on the secondary model, saw the uncommitted diff fenced as data, twice.
    const reviews = e2e.model.requests.filter(isFixReview);
    expect(reviews.map((r) => r.model)).toEqual(["m2", "m2"]);
    expect(reviews[0]?.system).toContain("You are a rigorous, independent reviewer");
    expect(reviews[0]?.lastUser).toMatch(
      /<(untrusted-[0-9a-f]+) label="fix diff">\n[\s\S]*\+export const add = \(a, b\) => a \* b;[\s\S]*<\/\1>/,
    );
    expect(reviews[1]?.lastUser).toContain("+export const add = (a, b) => a + b;");
    const fixes = e2e.model.requests.filter((r) => isFix(r) && !followUp(r));
    expect(fixes).toHaveLength(2);
    expect(fixes[1]?.lastUser).toContain(reason);
    // One commit, the second pass's fix.
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(before);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(field(ws, "fix_attempts")).toBe("1");
    expect(readDoc(ws)).toContain("; reviewed by mock/m2: approved");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a PR from a fork is refused: recorded, a person notified once, no session, nothing pushed", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH, fork: { owner: "stranger", repo: "app" } });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }), env: f.env, remote: true });
    await cloneOfPr(ws);
    const { client } = await e2e.serve(ws);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    await ottoPr(client, `add ${PR_URL}`);
    const before = await ws.repo.remoteLog(BRANCH);
    expect(await ottoPr(client, "watch once")).toContain(`| ${KEY} | failed |`);
    expect(await ottoPr(client, "fix")).toContain("is in the fork stranger/app; otto pushes only to branches of octo/app");
    expect(e2e.model.requests.some((r) => isAnalysis(r) || isFix(r))).toBe(false);
    expect(await ws.repo.remoteLog(BRANCH)).toEqual(before);
    expect(f.gh.calls.some((c) => c.path.includes("/logs"))).toBe(false);
    expect(readDoc(ws)).toContain("### Refused — ");
    expect(f.hooks.calls.filter((c) => (c.body as { event?: string }).event === "human_needed")).toHaveLength(1);
    expect(field(ws, "fix_attempts")).toBe("0");
  });

  it("push rejected because the branch moved: fetch, rebase onto it, push again (no force)", async () => {
    const { ws, client } = await setup(e2e, forges);
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, FIXED, { before: () => pushBehindOttosBack(ws, "docs/notes.md", "other work\n") }),
    );
    const out = await ottoPr(client, "fix 1");
    expect(out).toContain("(pushed)");
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log.map((c) => c.subject)).toEqual(["Add instead of subtract in add()", "Other change", "Add math", "Initial commit"]);
    expect(log[0]?.subject).toBe("Add instead of subtract in add()");
    expect(log[1]?.subject).toBe("Other change");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(await ws.repo.remoteFile("docs/notes.md", BRANCH)).toBe("other work\n");
    expect(readDoc(ws)).toContain("- **Result**: pushed to feature/1 after rebasing onto the moved branch");
  });

  it("rebase conflicts: one resolution session, then the rebase continues and the fix is pushed", async () => {
    const { ws, client } = await setup(e2e, forges);
    const merged = "export const add = (a, b) => a + b; // checked\n";
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, FIXED, { before: () => pushBehindOttosBack(ws, "src/math.js", "export const add = (a, b) => a - b; // checked\n") }),
      {
        label: "conflicts",
        match: isConflict,
        times: Infinity,
        reply: (req) =>
          followUp(req)
            ? text("src/math.js: kept both (the fix and the comment).")
            : toolCall("write", { filePath: path.join(ws.project, "src/math.js"), content: merged }),
      },
    );
    const out = await ottoPr(client, "fix");
    expect(out).toContain("(pushed)");
    expect(e2e.model.requests.find(isConflict)?.lastUser).toContain("- src/math.js");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(merged);
    expect((await ws.repo.remoteLog(BRANCH))[1]?.subject).toBe("Other change");
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
  });
});

describe("PR fix flow on Azure DevOps", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("fix verb pushes a fix (logs from the build timeline); the watcher's next failure uses the last attempt and gives up with one thread", async () => {
    const f = await forges();
    const pr = f.ado.state.addPr({ id: 30, title: "Add math", branch: BRANCH });
    f.ado.state.setChecks(pr, [{ name: "ci", result: "failed", log: JOB_LOG }]);
    const config = f.ottoConfig({ models: { primary: "mock/m1" } });
    const ws = await e2e.workspace({
      userOttoConfig: { ...config, pr: { ...(config.pr as object), max_fix_attempts: 2 } },
      env: f.env,
      remote: true,
    });
    const { client } = await e2e.serve(ws);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    expect(await ottoPr(client, "add 30 --provider ado")).toContain("Tracking PR");
    const key = "ado-contoso-30";
    const docOf = () => fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "prs", `${key}.md`), "utf8");
    // The clone's origin is the repository URL of the PR as Azure DevOps reports it.
    const repoUrl = (/\nurl: '?([^'\n]*)'?\n/.exec(docOf())?.[1] ?? "").replace(/\/pullrequest\/\d+$/, "");
    await ws.repo.git(["checkout", "-q", "-b", BRANCH]);
    await ws.repo.commit("Add math", { "src/math.js": BROKEN });
    await ws.repo.git(["push", "-q", "-u", "origin", BRANCH]);
    await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, repoUrl]);
    await ws.repo.git(["remote", "set-url", "origin", repoUrl]);

    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED, { times: 2 }), {
      label: "fix (no change)",
      times: Infinity,
      match: isFix,
      reply: text("Nothing else to change.\nTASK_FAILED: the fix is already there"),
    });
    const out = await ottoPr(client, "fix");
    expect(out).toContain("(pushed)");
    expect(f.ado.calls.some((c) => /\/_apis\/build\/builds\/\d+\/logs\/2$/.test(c.path))).toBe(true);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(/\nfix_attempts: (\d+)/.exec(docOf())?.[1]).toBe("1");

    // Azure DevOps shows otto's push as the PR's head, and its pipeline fails again: the watcher
    // hands it to the fix flow, whose last attempt changes nothing. (While the forge still showed the
    // old head, no new attempt would start: otto's fix is on its way.)
    f.ado.state.pushCommit(pr);
    f.ado.state.setChecks(pr, [{ name: "ci", result: "failed", log: JOB_LOG }]);
    await ottoPr(client, "watch once");
    expect(/\nfix_attempts: (\d+)/.exec(docOf())?.[1]).toBe("2");
    expect(/\nstatus: (\w+)/.exec(docOf())?.[1]).toBe("failed");
    const posted = f.ado.state.threads.filter((t) => t.comments.some((c) => c.content.includes("otto: giving up after 2 attempts")));
    expect(posted).toHaveLength(1);
    await ottoPr(client, "watch once");
    expect(f.ado.state.threads.filter((t) => t.comments.some((c) => c.content.includes("giving up")))).toHaveLength(1);
    expect(docOf()).toContain("- **Trigger**: watcher: pipeline failed on");
    expect(e2e.model.unmatched()).toEqual([]);
  });
});

describe("PR fix flow headless (an opencode run process of its own)", () => {
  const e2e = useE2E();
  const forges = useForges();

  it("headless: opencode run --command otto-pr -- fix <key> blocks until the fix is pushed and prints the summary", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const ws = await e2e.workspace({
      userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1", fix: "mock/m2" } }),
      env: f.env,
      remote: true,
    });
    await cloneOfPr(ws);
    e2e.model.script(
      { ...slashCommand("otto_pr")[0]!, times: Infinity },
      { ...slashCommand("otto_pr")[1]!, times: Infinity },
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, FIXED),
    );
    const add = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "add", PR_URL]);
    expect(add.stdout).toContain("Tracking PR #1");
    // By key: OpenCode's CLI turns a numeric argument ("1") into a number and fails on it.
    const run = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "fix", KEY], { timeoutMs: 120_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`## otto-pr fix: ${KEY} (pushed)`);
    expect(run.stdout).toMatch(/Attempt 1\/5: pushed `[0-9a-f]{7}` to feature\/1 \(pushed without local checks: none found\)/);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    // Phase 1 on the primary model, phase 2 on models.fix.
    expect(e2e.model.requests.filter(isAnalysis).every((r) => r.model === "m1")).toBe(true);
    expect(e2e.model.requests.filter(isFix).map((r) => r.model)).toEqual(["m2", "m2"]);
    expect(readDoc(ws)).toContain("- **Trigger**: /otto-pr fix: pipeline failed on");
  });
});
