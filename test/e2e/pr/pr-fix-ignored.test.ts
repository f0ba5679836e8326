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
} from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import {
  BRANCH,
  PR_URL,
  BROKEN,
  FIXED,
  readDoc,
  field,
  cloneOfPr,
  isFix,
  followUp,
  summary,
  fixReview,
  analysis,
} from "../pr/fix-script.ts";
import { recordFigure } from "../../support/figures.ts";

/*
 * The user's ignored files are theirs: the PR's checkout is clean but for an ignored `.env` with
 * an API key in it, so otto fixes in place. The fix session removes `.env` from `.gitignore` and
 * fixes the code. Otto's commit takes the fix and the .gitignore edit (the session's) and leaves
 * `.env` out, says so in the PR document and the summary, and the file stays on disk unchanged.
 */

const JOB_LOG = [
  "FAIL test/math.test.js",
  "  ● add › adds two numbers: expected 3, received -1",
  "##[error]Process completed with exit code 1.",
].join("\n");
const GITIGNORE = "node_modules/\n.env\n";
const DOTENV = "OPENAI_API_KEY=sk-the-users-own-key-0123456789abcdef\n";

function sessionDir(req: RecordedRequest): string {
  const dir = /Working directory: (.+)/.exec(req.system)?.[1]?.trim();
  if (!dir) throw new Error(`no working directory in the system prompt:\n${req.system.slice(0, 2000)}`);
  return dir;
}

/** Phase 2: un-ignores .env (the .gitignore without its line), then writes the fix. */
function unignoringFixer(dirs: string[]): ScriptEntry {
  let step = 0;
  return {
    label: "fix un-ignoring .env",
    times: Infinity,
    match: isFix,
    reply: (req): Step => {
      if (!followUp(req)) step = 0;
      step++;
      const dir = sessionDir(req);
      if (step === 1) {
        dirs.push(dir);
        return toolCall("write", { filePath: path.join(dir, ".gitignore"), content: "node_modules/\n" });
      }
      if (step === 2) return toolCall("write", { filePath: path.join(dir, "src/math.js"), content: FIXED });
      return text("Changed src/math.js: add() subtracted; tidied .gitignore.\nFix summary: Add instead of subtract in add()");
    },
  };
}

describe("/otto-pr fix when the session un-ignores the user's .env", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("pushes the fix without .env, names .env as left out in the PR document and the summary, and leaves the file on disk unchanged", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const config = f.ottoConfig({ models: { primary: "mock/m1" } });
    const ws = await e2e.workspace({ userOttoConfig: config, env: f.env, remote: true });
    ws.writeOttoConfig({ ...config, repos: [{ name: "app", primary_dir: ws.project, git_strategy: "branch" }] }, "user");
    await cloneOfPr(ws, { files: { "src/math.js": BROKEN, ".gitignore": GITIGNORE } });
    // The user's ignored .env: the checkout is clean, so otto works in it.
    const dotenv = path.join(ws.project, ".env");
    fs.writeFileSync(dotenv, DOTENV);
    const mtime = fs.statSync(dotenv).mtimeMs;
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");
    const remoteBefore = (await ws.repo.remoteLog(BRANCH))[0]?.sha;

    const dirs: string[] = [];
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), unignoringFixer(dirs));
    const out = await ottoPr(client, "fix");
    // Measured before any assertion, so a regression shows in the bench as a number.
    const leaked = (await ws.repo.remoteFile(".env", BRANCH)) !== undefined;
    recordFigure({
      name: "ignored files of the user (.env with a key) committed after a session un-ignored them",
      tried: 1,
      through: leaked ? 1 : 0,
    });
    expect(out).toContain("pushed");
    // In the user's checkout itself (clean: ignored files do not count).
    expect(dirs).toEqual([ws.project]);

    // The remote branch: the fix and the session's .gitignore edit, one commit, no .env anywhere.
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(remoteBefore);
    expect((await ws.repo.gitRemote(["show", "--name-only", "--format=", BRANCH])).split("\n").sort()).toEqual([
      ".gitignore",
      "src/math.js",
    ]);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(leaked).toBe(false);
    expect(await ws.repo.gitRemote(["log", "-p", BRANCH])).not.toContain("sk-the-users-own-key");

    // Said where the user reads it: the summary and the PR document's Fix History.
    expect(out).toContain("Left out: .env");
    expect(readDoc(ws)).toContain("Left out: .env");
    // The user's .env: on disk, byte for byte, not even touched; still untracked locally.
    expect(fs.readFileSync(dotenv, "utf8")).toBe(DOTENV);
    expect(fs.statSync(dotenv).mtimeMs).toBe(mtime);
    expect(await ws.repo.git(["ls-files", ".env"])).toBe("");
    expect(field(ws, "fix_attempts")).toBe("1");
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
