import path from "node:path";
import { expect } from "vitest";
import { text, toolCall, type RecordedRequest, type ScriptEntry, type Step, type useE2E, type Workspace } from "../../support/index.ts";
import type { Forges } from "./forges.ts";

/*
 * What the review-loop e2e files share: the scripted loop sessions (reviewers, comments analyzer,
 * fix) and the PR's clone, whose origin names the forge's repository and reaches a bare repository
 * through url.insteadOf.
 */

export const BRANCH = "feature/greet";
export const LOOP_MARKER = "<!-- pr-review-loop-marker -->";
export const RUN_TIMEOUT = 180_000;

export type Kind = { kind: "reviewer"; reviewer: string; round: number } | { kind: "comments" } | { kind: "fix"; round: number };

export function kindOf(req: RecordedRequest): Kind | undefined {
  if (req.isTitle) return undefined;
  const reviewer = /You are (reviewer-\d+), one of several independent senior engineers .*\(review round (\d+)\)/.exec(req.lastUser);
  if (reviewer) return { kind: "reviewer", reviewer: reviewer[1] ?? "", round: Number(reviewer[2]) };
  if (req.lastUser.includes("You analyse the unresolved reviewer comments")) return { kind: "comments" };
  const fix = /Reviewers found problems in a pull request \(review round (\d+)\)/.exec(req.lastUser);
  if (fix) return { kind: "fix", round: Number(fix[1]) };
  return undefined;
}

export const envelope = (value: unknown): Step => text(`Done.\nBEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`);
export const approve = (): Step => envelope({ conclusion: "approve", findings: [], fullReport: "Looks right." });
export const finding = (title: string, extra: Record<string, unknown> = {}) => ({
  priority: "P1",
  category: "quality",
  file: "greet.txt",
  line: 1,
  title,
  description: `${title}: the greeting is wrong.`,
  suggestion: "Say hello, world.",
  ...extra,
});
export const requestChanges = (...findings: unknown[]): Step =>
  envelope({ conclusion: "request_changes", findings, fullReport: "One problem." });

/** Finding ids of the fix payload the fix session was given (computed by otto). */
export function payloadIds(req: RecordedRequest): string[] {
  const payload = /<(untrusted-[0-9a-f]+) label="fix payload">\n([\s\S]*?)\n<\/\1>/.exec(req.lastUser)?.[2] ?? "{}";
  return (JSON.parse(payload) as { issuesToFix: Array<{ id: string }> }).issuesToFix.map((f) => f.id);
}

/** A fix session that writes `file` with the real write tool, then reports every issue fixed. */
export function fixWrites(project: string, req: RecordedRequest, file: string, content: string): Step {
  if (req.lastRole !== "tool") return toolCall("write", { filePath: path.join(project, file), content });
  return envelope({
    fixedIssues: payloadIds(req).map((findingId) => ({ findingId, description: `Rewrote ${file}.` })),
    rejectedIssues: [],
  });
}

export type Respond = (kind: Kind, req: RecordedRequest) => Step | undefined;

/** One entry answering every loop session; reviewers approve and fixes write greet.txt unless `respond` says otherwise. */
export function loopModel(project: string, respond: Respond): ScriptEntry {
  return {
    label: "loop model",
    times: Infinity,
    match: (req) => kindOf(req) !== undefined,
    reply: (req) => {
      const kind = kindOf(req) as Kind;
      const step = respond(kind, req);
      if (step) return step;
      if (kind.kind === "fix") return fixWrites(project, req, "greet.txt", "hello, world\n");
      if (kind.kind === "comments") return envelope({ threads: [], fullReport: "" });
      return approve();
    },
  };
}

/**
 * The otto config of the loop tests (two reviewer models, `verify`) and a workspace whose project is
 * the PR's clone on BRANCH, with origin named `repoUrl` and reaching the bare repository.
 */
export async function loopWorkspace(
  e2e: ReturnType<typeof useE2E>,
  f: Forges,
  repoUrl: string,
  options: {
    verify?: string[];
    extraConfig?: Record<string, unknown>;
    /** models.fix, a third mock model (default mock/m1, the primary). */ fixModel?: "mock/m3";
    /** otto's notify section. */ notify?: Record<string, unknown>;
  } = {},
): Promise<Workspace> {
  const config = f.ottoConfig() as { pr: Record<string, unknown> } & Record<string, unknown>;
  config.pr = { ...config.pr, verify: options.verify ?? [] };
  config.models = { reviewers: ["mock/m1", "mock/m2"], primary: "mock/m1", fix: options.fixModel ?? "mock/m1" };
  if (options.notify) config.notify = options.notify;
  const ws = await e2e.workspace({
    remote: true,
    files: { "greet.txt": "hello\n" },
    userOttoConfig: config,
    env: f.env,
    // Always three models, so every loop test can share one served OpenCode (useE2E shareServer).
    models: ["m1", "m2", "m3"],
    ...(options.extraConfig ? { config: options.extraConfig } : {}),
  });
  const { repo } = ws;
  await repo.git(["checkout", "-q", "-b", BRANCH]);
  await repo.commit("Greet", { "greet.txt": "helo wrld\n" });
  await repo.git(["push", "-q", "origin", BRANCH]);
  await repo.git(["branch", "-q", "--set-upstream-to", `origin/${BRANCH}`]);
  await repo.git(["remote", "set-url", "origin", repoUrl]);
  await repo.git(["config", `url.${repo.remote}.insteadOf`, repoUrl]);
  return ws;
}

/** `/pr-review <url> --loop` headless; it must exit 0. */
/** `exit`: 1 where the loop refuses (headless, a refusal exits non-zero). */
export async function runLoop(e2e: ReturnType<typeof useE2E>, ws: Workspace, prUrl: string, exit = 0) {
  const run = await e2e.run(ws, ["run", "--command", "pr-review", "--", prUrl, "--loop"], { timeoutMs: RUN_TIMEOUT });
  expect(run.exitCode, run.stderr).toBe(exit);
  return run;
}
