import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gitEnv, text, toolCall, type RecordedRequest, type ScriptEntry, type Step, type Workspace } from "../../support/index.ts";

/*
 * What the fix-flow e2e files share: the PR's clone (pushes land in a bare repository on disk through
 * url.<bare>.insteadOf), the PR document, and the scripted analysis and fix sessions.
 */

export const BRANCH = "feature/1";
export const PR_URL = "https://github.com/octo/app/pull/1";
export const KEY = "github-octo-app-1";
export const BROKEN = "export const add = (a, b) => a - b;\n";
export const FIXED = "export const add = (a, b) => a + b;\n";

export const readDoc = (ws: Workspace, key = KEY): string =>
  fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "prs", `${key}.md`), "utf8");
export const field = (ws: Workspace, name: string, key = KEY): string | undefined =>
  new RegExp(`\\n${name}: '?([^'\\n]*)'?\\n`).exec(readDoc(ws, key))?.[1];

/** The project becomes the PR's clone: `branch` with `files` pushed, origin named `repoUrl`, pushes to the bare repo. */
export async function cloneOfPr(
  ws: Workspace,
  options: { branch?: string; repoUrl?: string; files?: Record<string, string> } = {},
): Promise<void> {
  const branch = options.branch ?? BRANCH;
  const repoUrl = options.repoUrl ?? "https://github.com/octo/app";
  await ws.repo.git(["checkout", "-q", "-b", branch]);
  await ws.repo.commit("Add math", options.files ?? { "src/math.js": BROKEN });
  await ws.repo.git(["push", "-q", "-u", "origin", branch]);
  await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, repoUrl]);
  await ws.repo.git(["remote", "set-url", "origin", repoUrl]);
}

/** Someone else pushes to the PR branch behind otto's back (synchronous: called from a model reply). */
export function pushBehindOttosBack(ws: Workspace, file: string, content: string, branch = BRANCH): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-other-"));
  const run = (args: string[], cwd = dir): string => execFileSync("git", args, { cwd, env: gitEnv(), encoding: "utf8" });
  try {
    run(["clone", "-q", "-b", branch, ws.repo.remote, "c"]);
    const clone = path.join(dir, "c");
    fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    fs.writeFileSync(path.join(clone, file), content);
    run(["add", "-A"], clone);
    run(["-c", "user.name=Other Dev", "-c", "user.email=other@example.invalid", "commit", "-q", "-m", "Other change"], clone);
    run(["push", "-q", "origin", branch], clone);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const isAnalysis = (req: RecordedRequest): boolean => req.lastUser.includes("Another engineer will fix it in a fresh session");
export const isFix = (req: RecordedRequest): boolean => req.lastUser.includes("the failures have been analysed");
export const isConflict = (req: RecordedRequest): boolean => req.lastUser.includes("the rebase stopped on conflicts");
export const followUp = (req: RecordedRequest): boolean => req.lastRole === "tool";

/** A phase-1 answer for the `unit` check of src/math.js with the given verdict line. */
export const summary = (verdict: string, extra = ""): string =>
  `Read the log.\nBEGIN_DOCUMENT\n# Pipeline Failure Summary\n\n## Verdict\n${verdict}\n\n## unit\n- **Kind**: test\n- **Root error**:\n  add › adds two numbers: expected 3, received -1\n- **Location**: src/math.js:1${extra}\nEND_DOCUMENT`;

/** Phase 1: reads the first log file the prompt names with OpenCode's read tool, then answers `answer`. */
export function analysis(ws: Workspace, answer: string, times = Infinity): ScriptEntry {
  return {
    label: "analysis",
    times,
    match: isAnalysis,
    reply: (req) => {
      if (followUp(req)) return text(answer);
      const file = /^- (\.otto\/pr-logs\/\S+\.log)$/m.exec(req.lastUser)?.[1];
      if (!file) throw new Error(`no log file in the analysis prompt:\n${req.lastUser}`);
      return toolCall("read", { filePath: path.join(ws.project, file) });
    },
  };
}

/** Phase 2: writes `content` to src/math.js, then reports (before: something to do first, e.g. move the branch). */
export function fixer(ws: Workspace, content: string, options: { before?: () => void; times?: number; reply?: string } = {}): ScriptEntry {
  return {
    label: "fix",
    times: options.times ?? Infinity,
    match: isFix,
    reply: (req): Step => {
      if (followUp(req))
        return text(options.reply ?? "Changed src/math.js: add() subtracted.\nFix summary: Add instead of subtract in add()");
      options.before?.();
      return toolCall("write", { filePath: path.join(ws.project, "src/math.js"), content });
    },
  };
}

export const isFixReview = (req: RecordedRequest): boolean => req.lastUser.includes("you review the fix independently");

/** The secondary model's review of a fix before the push: `verdict` with `reasons`, `times` times. */
export function fixReview(verdict: "APPROVE" | "REJECT", options: { times?: number; reasons?: string[] } = {}): ScriptEntry {
  const reasons = options.reasons ?? [
    verdict === "APPROVE" ? "add() now adds; the fix is minimal" : "the fix does not address the failure",
  ];
  return {
    label: `fix review (${verdict})`,
    times: options.times ?? Infinity,
    match: isFixReview,
    reply: text(`Read the diff.\nBEGIN_JSON\n${JSON.stringify({ verdict, reasons })}\nEND_JSON`),
  };
}
