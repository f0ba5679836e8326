import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  slashCommand,
  assertPluginLoaded,
  text,
  toolCall,
  useE2E,
  type RecordedRequest,
  type ScriptEntry,
  type Step,
  type Workspace,
} from "../../support/index.ts";
import { ottoPr, useForges, type Forges } from "../pr/forges.ts";
import {
  BRANCH,
  PR_URL,
  BROKEN,
  FIXED,
  readDoc,
  field,
  cloneOfPr,
  isAnalysis,
  isFix,
  followUp,
  summary,
  fixReview,
} from "../pr/fix-script.ts";
import { recordFigure } from "../../support/figures.ts";

/*
 * The user's uncommitted work in the PR's checkout is never taken: `/otto-pr fix` with an edited
 * tracked file and an untracked .env in a branch-strategy checkout fixes and pushes from a
 * temporary worktree (the fix commit holds neither; the user's files are byte-identical after;
 * the worktree is gone). With the hands-off strategy nothing runs: a note and a notification.
 */

const JOB_LOG = [
  "FAIL test/math.test.js",
  "  ● add › adds two numbers: expected 3, received -1",
  "##[error]Process completed with exit code 1.",
].join("\n");
const USER_EDIT = "# app\n\nThe user's unfinished notes.\n";
const DOTENV = "API_TOKEN=the-users-own-secret\n";

/** The directory OpenCode scoped the session to, from its environment block in the system prompt. */
function sessionDir(req: RecordedRequest): string {
  const dir = /Working directory: (.+)/.exec(req.system)?.[1]?.trim();
  if (!dir) throw new Error(`no working directory in the system prompt:\n${req.system.slice(0, 2000)}`);
  return dir;
}

/** Phase 1, in whatever directory the session has: reads the first log file the prompt names. */
function analysisHere(answer: string): ScriptEntry {
  return {
    label: "analysis",
    times: Infinity,
    match: isAnalysis,
    reply: (req) => {
      if (followUp(req)) return text(answer);
      const file = /^- (\.otto\/pr-logs\/\S+\.log)$/m.exec(req.lastUser)?.[1];
      if (!file) throw new Error(`no log file in the analysis prompt:\n${req.lastUser}`);
      return toolCall("read", { filePath: path.join(sessionDir(req), file) });
    },
  };
}

/** Phase 2, in the session's directory: writes the fix to src/math.js (and records where it worked). */
function fixerHere(dirs: string[]): ScriptEntry {
  return {
    label: "fix",
    times: Infinity,
    match: isFix,
    reply: (req): Step => {
      if (followUp(req)) return text("Changed src/math.js: add() subtracted.\nFix summary: Add instead of subtract in add()");
      dirs.push(sessionDir(req));
      return toolCall("write", { filePath: path.join(sessionDir(req), "src/math.js"), content: FIXED });
    },
  };
}

/** Every file of the checkout but .git, with its bytes and mtime. */
function snapshotFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = path.join(rel, entry.name);
      if (p === ".git") continue;
      if (entry.isDirectory()) walk(p);
      else out[p] = `${fs.readFileSync(path.join(dir, p)).toString("base64")} ${fs.statSync(path.join(dir, p)).mtimeMs}`;
    }
  };
  walk("");
  return out;
}

async function setup(
  e2e: ReturnType<typeof useE2E>,
  forges: () => Promise<Forges>,
  strategy: "branch" | "hands-off",
): Promise<{ f: Forges; ws: Workspace; client: Awaited<ReturnType<ReturnType<typeof useE2E>["serve"]>>["client"] }> {
  const f = await forges();
  const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
  f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
  const config = f.ottoConfig({ models: { primary: "mock/m1" } });
  // The repos entry needs the project's path, known once the workspace exists: written after.
  const ws = await e2e.workspace({ userOttoConfig: config, env: f.env, remote: true });
  ws.writeOttoConfig({ ...config, repos: [{ name: "app", primary_dir: ws.project, git_strategy: strategy }] }, "user");
  await cloneOfPr(ws);
  // The user at work in the PR's checkout: an edited tracked file and an untracked .env.
  fs.writeFileSync(path.join(ws.project, "README.md"), USER_EDIT);
  fs.writeFileSync(path.join(ws.project, ".env"), DOTENV);
  const { client } = await e2e.serve(ws);
  await assertPluginLoaded(client);
  e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
  expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");
  return { f, ws, client };
}

describe("/otto-pr fix in a checkout holding the user's uncommitted work", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("branch strategy: fixed and pushed from a temporary worktree; the commit holds neither the .env nor the user's edit; the user's files are byte-identical; the worktree is gone", async () => {
    const { ws, client } = await setup(e2e, forges, "branch");
    const before = snapshotFiles(ws.project);
    const head = await ws.repo.git(["rev-parse", "HEAD"]);
    const remoteBefore = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    const dirs: string[] = [];
    e2e.model.script(fixReview("APPROVE"), analysisHere(summary("code: add() subtracts")), fixerHere(dirs));

    const out = await ottoPr(client, "fix");
    // The user's checkout: every file byte-identical (mtimes too), same HEAD, same branch. Recorded before any assertion, so a regression shows in the bench as a number.
    const after = snapshotFiles(ws.project);
    const changed = Object.keys({ ...before, ...after }).filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f])).length;
    recordFigure({
      name: "user files in the checkout before a fix (edited README, untracked .env, …) changed or lost after it",
      tried: Object.keys(before).length,
      through: changed,
    });
    expect(out).toContain("pushed");

    // The fix session worked elsewhere: a temporary worktree, not the user's checkout.
    expect(dirs).toHaveLength(1);
    expect(dirs[0]).not.toBe(ws.project);
    // Pushed: one commit on the PR branch with the fix and nothing of the user's.
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(remoteBefore);
    expect(log[0]?.subject).toBe("Add instead of subtract in add()");
    expect(await ws.repo.gitRemote(["show", "--name-only", "--format=", BRANCH])).toBe("src/math.js");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(await ws.repo.remoteFile(".env", BRANCH)).toBeUndefined();
    expect(await ws.repo.remoteFile("README.md", BRANCH)).not.toBe(USER_EDIT);
    expect(await ws.repo.gitRemote(["log", "--format=%B", BRANCH])).not.toContain("the-users-own-secret");

    expect(after).toEqual(before);
    expect(fs.readFileSync(path.join(ws.project, "src/math.js"), "utf8")).toBe(BROKEN);
    expect(await ws.repo.git(["rev-parse", "HEAD"])).toBe(head);
    expect(await ws.repo.git(["symbolic-ref", "--short", "HEAD"])).toBe(BRANCH);
    // The temporary worktree is gone, on disk and in git's list.
    expect(fs.existsSync(dirs[0]!)).toBe(false);
    expect((await ws.repo.git(["worktree", "list", "--porcelain"])).match(/^worktree /gm)).toHaveLength(1);

    expect(field(ws, "fix_attempts")).toBe("1");
    expect(field(ws, "status")).toBe("watching");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("hands-off: deferred, no session, nothing pushed, a note in the PR document and one notification", async () => {
    const { f, ws, client } = await setup(e2e, forges, "hands-off");
    const before = snapshotFiles(ws.project);
    const remoteBefore = (await ws.repo.remoteLog(BRANCH))[0]?.sha;

    const out = await ottoPr(client, "fix");
    expect(out).toContain("PR #1: your checkout has uncommitted changes; otto did not touch it");
    expect(out).toContain("/otto-pr fix");
    expect(e2e.model.requests.filter((r) => isAnalysis(r) || isFix(r))).toEqual([]);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(remoteBefore);
    expect(snapshotFiles(ws.project)).toEqual(before);
    expect((await ws.repo.git(["worktree", "list", "--porcelain"])).match(/^worktree /gm)).toHaveLength(1);
    expect(field(ws, "fix_attempts")).toBe("0");
    expect(field(ws, "status")).toBe("watching");
    expect(readDoc(ws)).toContain("not fixed: ");
    expect(readDoc(ws)).toContain("(hands-off) has uncommitted changes");
    const notes = () => f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("your checkout has uncommitted changes"));
    expect(notes()).toHaveLength(1);

    // Asked again for the same head: deferred again, not notified twice.
    await ottoPr(client, "fix");
    expect(notes()).toHaveLength(1);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
