import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import {
  assertPluginLoaded,
  gitEnv,
  slashCommand,
  text,
  toolCall,
  type RecordedRequest,
  type ScriptEntry,
  type Step,
  type useE2E,
  type Workspace,
} from "../../support/index.ts";
import type { Forges } from "../pr/forges.ts";
import { ottoPr } from "../pr/forges.ts";
import { BRANCH, BROKEN, FIXED, PR_URL, cloneOfPr, followUp, isAnalysis, isFix } from "../pr/fix-script.ts";

/*
 * What the hostile cases share: a red PR whose fix flow otto runs through real OpenCode (scripted
 * model, fake GitHub, a bare remote on disk), with the hostile step either in the PR's own check
 * script (`pr.verify`, run by otto in the sandbox before and after the fix) or in the fix session's
 * bash tool (run in the sandbox by the session guard). Everything lives under a folder outside
 * /tmp: the sandbox replaces /tmp with an empty one, so a home, remote or marker there would be out
 * of reach from inside whatever otto did, and a test of it would prove nothing.
 */

/** The PR's root test: fails until src/math.js adds. */
export const TEST_JS =
  'import { add } from "./src/math.js";\nif (add(1, 2) !== 3) {\n  console.error("add(1, 2): expected 3, received " + add(1, 2));\n  process.exit(1);\n}\nconsole.log("1 passed, 0 failed");\n';

/** The PR's files besides the hostile ones: the broken code, its test, and `.build-cache/` (the hostile steps' scratch) ignored. */
export const PR_FILES: Readonly<Record<string, string>> = {
  "src/math.js": BROKEN,
  "test.js": TEST_JS,
  "package.json": `${JSON.stringify({ name: "app", type: "module", scripts: { test: "node test.js" } }, null, 2)}\n`,
  ".gitignore": ".build-cache/\n.env\n",
};

/**
 * The PR's check script: `hostile` (shell), then a line in `.build-cache/check.ran` (the positive
 * control that otto ran it), then the real test.
 */
export const checkScript = (hostile: string): string =>
  `#!/bin/sh\nmkdir -p .build-cache\n${hostile}\necho ran >> .build-cache/check.ran\nnode test.js\n`;

/**
 * OpenCode as a user runs it where it matters to an attack: its undo snapshots on (the harness
 * turns them off elsewhere), so its own git reads the trees sandboxed code wrote.
 */
export const HOSTILE_OPENCODE = { snapshot: true };

/** A folder under ~/.cache for the file's workspaces (outside /tmp), removed after the file. */
export function useOutsideTmp(): () => string {
  let base = "";
  beforeAll(() => {
    const parent = path.join(os.homedir(), ".cache");
    fs.mkdirSync(parent, { recursive: true });
    base = fs.mkdtempSync(path.join(parent, "otto-e2e-hostile-"));
  });
  afterAll(() => {
    if (base && process.env.OTTO_E2E_KEEP !== "1") fs.rmSync(base, { recursive: true, force: true });
  });
  return () => {
    if (!base) throw new Error("useOutsideTmp() is only available inside tests");
    return base;
  };
}

/** A folder for markers that something outside the sandbox would write, beside (not inside) the workspace. */
export function outsideDir(base: string, name: string): string {
  const dir = fs.mkdtempSync(path.join(base, `${name}-`));
  return dir;
}

export const b64 = (s: string): string => Buffer.from(s).toString("base64");

/** A bash step that writes `script` and runs it in one line: the command layer cannot read it, only the sandbox stands. */
export const scriptStep = (script: string, id: string, description = "run a helper script"): Step =>
  toolCall("bash", { command: `echo ${b64(script)} | base64 -d > .s.sh && sh .s.sh; rm -f .s.sh`, description }, id);

export const bash = (command: string, id: string, description = "run a command"): Step => toolCall("bash", { command, description }, id);

const toolCount = (req: RecordedRequest): number => req.messages.filter((m) => m.role === "tool").length;

/** The directory OpenCode scoped the session to (the checkout, or otto's temporary worktree), from its system prompt. */
export function sessionDir(req: RecordedRequest): string {
  const dir = /Working directory: (.+)/.exec(req.system)?.[1]?.trim();
  if (!dir) throw new Error(`no working directory in the system prompt:\n${req.system.slice(0, 2000)}`);
  return dir;
}

/** Phase 1 in whatever directory the session has: reads the first log file the prompt names, then answers `answer`. */
export function analysisHere(answer: string): ScriptEntry {
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

/** The fix session: each step one tool call, then the fix of src/math.js in its directory (unless `fix: false`), then the report. */
export function fixSession(steps: readonly Step[], options: { fix?: boolean; before?: () => void; reply?: string } = {}): ScriptEntry {
  const fix = options.fix ?? true;
  return {
    label: "hostile fix session",
    times: Infinity,
    match: isFix,
    reply: (req): Step => {
      const done = toolCount(req);
      if (done === 0) options.before?.();
      const step = steps[done];
      if (step !== undefined) return step;
      if (fix && done === steps.length)
        return toolCall("write", { filePath: path.join(sessionDir(req), "src/math.js"), content: FIXED }, "call_fix");
      return text(options.reply ?? "Changed src/math.js.\nFix summary: Add instead of subtract in add()");
    },
  };
}

/** What the fix session's tool calls returned, in order. */
export const toolResults = (e2e: ReturnType<typeof useE2E>): string[] =>
  e2e.model.requests.filter((r) => isFix(r) && r.lastRole === "tool").map((r) => r.toolResults[0]?.content ?? "");

export interface FixSetup {
  /** The workspace base (outside /tmp). */
  base: string;
  /** Files of the PR besides PR_FILES (which they override). */
  files?: Record<string, string>;
  /** Files of PR_FILES the PR does not have. */
  omit?: string[];
  /** pr.verify (default none: the project's `npm test` is found). */
  verify?: string[];
  /** Extra environment of OpenCode (and so of otto). */
  env?: Record<string, string>;
  /** Runs on the PR's clone before OpenCode starts (the user's own setup: git config, ignored files). */
  prepare?: (ws: Workspace) => Promise<void> | void;
  maxAttempts?: number;
}

/** A red PR tracked by otto in a served OpenCode, its clone on the PR's branch; `head` is the remote branch before the fix. */
export async function trackedPr(e2e: ReturnType<typeof useE2E>, forges: () => Promise<Forges>, setup: FixSetup) {
  const f = await forges();
  const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
  f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: "FAIL test.js\nadd(1, 2): expected 3, received -1" }]);
  const config = f.ottoConfig({ models: { primary: "mock/m1" } });
  const ws = await e2e.workspace({
    config: HOSTILE_OPENCODE,
    base: setup.base,
    userOttoConfig: {
      ...config,
      pr: { ...(config.pr as object), max_fix_attempts: setup.maxAttempts ?? 1, ...(setup.verify ? { verify: setup.verify } : {}) },
    },
    env: { ...f.env, ...setup.env },
    remote: true,
  });
  const files = Object.fromEntries(Object.entries({ ...PR_FILES, ...setup.files }).filter(([f]) => !setup.omit?.includes(f)));
  await cloneOfPr(ws, { files });
  await setup.prepare?.(ws);
  expect((await ws.repo.git(["status", "--porcelain"])).trim(), "the PR's clone starts clean").toBe("");
  const { client } = await e2e.serve(ws);
  await assertPluginLoaded(client);
  e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
  expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");
  const head = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
  return { f, ws, client, head };
}

/** Every ref of the bare remote: `sha ref` lines. */
export const remoteRefs = async (ws: Workspace): Promise<string[]> =>
  (await ws.repo.gitRemote(["for-each-ref", "--format=%(objectname) %(refname)"])).split("\n").filter(Boolean);

/** Whether `needle` appears in any blob reachable from any ref of the bare remote. */
export function remoteHolds(ws: Workspace, needle: string): boolean {
  const run = (args: string[]): string => execFileSync("git", args, { cwd: ws.repo.remote, env: gitEnv(), encoding: "utf8" });
  const objects = run(["rev-list", "--objects", "--all"])
    .split("\n")
    .map((l) => l.split(" ")[0])
    .filter((s): s is string => Boolean(s));
  for (const sha of objects) {
    if (run(["cat-file", "-t", sha]).trim() !== "blob") continue;
    if (run(["cat-file", "blob", sha]).includes(needle)) return true;
  }
  return false;
}

/** git in the clone as the user would run it (not otto), with extra environment; never throws. */
export function userGit(ws: Workspace, args: string[], env: Record<string, string> = {}): { status: number; stdout: string } {
  try {
    return { status: 0, stdout: execFileSync("git", args, { cwd: ws.project, env: gitEnv(env), encoding: "utf8", stdio: "pipe" }) };
  } catch (error) {
    const e = error as { status?: number; stdout?: string };
    return { status: e.status ?? -1, stdout: e.stdout ?? "" };
  }
}

export const readIf = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);

/** Commits `files` to the PR's branch and pushes them (the PR's author did): for files that name the workspace's paths. */
export async function commitToPr(ws: Workspace, files: Record<string, string>, message = "Add the check"): Promise<void> {
  await ws.repo.commit(message, files);
  await ws.repo.git(["push", "-q", "origin", "HEAD"]);
}
