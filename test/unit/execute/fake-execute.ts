import fs from "node:fs";
import { afterEach } from "vitest";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "../../../src/core/index.ts";
import type { ExecuteDeps, ExecuteSettings } from "../../../src/execute/index.ts";
import { Background } from "../../../src/execute/index.ts";
import { runGit } from "../../../src/workspace/index.ts";
import { SessionRunner } from "../../../src/session/index.ts";
import { parseTasks } from "../../../src/spec/index.ts";
import { execKindOf, SPEC_DOCS, taskIdOf, type ExecKind } from "../../e2e/execute/kinds.ts";
import { git } from "../../support/git.ts";
import { FakeOpencode, type FakeTurn, type PromptCall } from "../session/fake-opencode.ts";

/** No override folder: the builtin prompts only. */
export const ENV = { HOME: "/nonexistent-otto-home", XDG_CONFIG_HOME: "/nonexistent-otto-config" };
export const SLUG = "greeting";

export interface Call extends PromptCall {
  kind: ExecKind | undefined;
  text: string;
  task?: string;
  at: number;
}

export const SETTINGS: ExecuteSettings = {
  maxParallelTasks: 4,
  taskTimeoutMs: 5_000,
  maxTaskRetries: 2,
  taskBriefing: true,
  verify: [],
  verifyTimeoutMs: 10_000,
  maxVerifyFixes: 2,
  reviewGate: true,
  externalAssumptions: true,
  domainHardening: true,
  docsAlignment: true,
};

export const envelope = (value: unknown): string => `Report.\nBEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`;
export const doc = (body: string): string => `Notes.\nBEGIN_DOCUMENT\n${body}\nEND_DOCUMENT`;

/** Default answers: approve reviews, no questions, briefs and summaries as text. */
export function defaultAnswer(call: Call): FakeTurn {
  switch (call.kind) {
    case "phase-review":
    case "review":
      return { text: envelope({ verdict: "approve", summary: "fine", issues: [] }) };
    case "question-harvest":
      return { text: envelope({ questions: [] }) };
    case "task-briefing":
      return { text: doc(`# Brief: ${call.task ?? "?"}\n\nDo it.`) };
    case "docs-align":
    case "docs-finalize":
      return { text: doc("# Documentation Alignment\n\n## Changes\n- none") };
    default:
      return { text: `Done: ${call.kind ?? "unknown"} ${call.task ?? ""}`.trim() };
  }
}

/**
 * A temp git repository with a spec, a fake OpenCode answering by prompt kind (the "model" edits
 * files itself, as the executor's tools would), and ExecuteDeps wired to both.
 */
export async function fakeExecute(
  tasks: string,
  answer: (call: Call, calls: Call[]) => FakeTurn | undefined | Promise<FakeTurn | undefined>,
  settings: Partial<ExecuteSettings> = {},
) {
  const repoRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-exec-unit-")));
  await git(["init", "-q", "-b", "main"], repoRoot);
  await git(["config", "user.name", "Otto Test"], repoRoot);
  await git(["config", "user.email", "otto-test@example.invalid"], repoRoot);
  await git(["config", "commit.gpgsign", "false"], repoRoot);
  const specDir = path.join(repoRoot, ".otto", "specs", SLUG);
  fs.mkdirSync(specDir, { recursive: true });
  fs.writeFileSync(path.join(repoRoot, "README.md"), "# project\n");
  for (const [name, text] of Object.entries(SPEC_DOCS)) fs.writeFileSync(path.join(specDir, name), text);
  fs.writeFileSync(path.join(specDir, "tasks.md"), tasks);
  await git(["add", "-A"], repoRoot);
  await git(["commit", "-q", "-m", "Initial commit"], repoRoot);

  const calls: Call[] = [];
  let respond = answer;
  const fake = new FakeOpencode(async (call) => {
    const text = call.body.parts[0]?.text ?? "";
    const kind = execKindOf(text);
    const entry: Call = {
      ...call,
      kind,
      text,
      task: kind === "execute-task" || kind === "task-briefing" ? taskIdOf(text) : undefined,
      at: Date.now(),
    };
    calls.push(entry);
    const turn = await respond(entry, calls);
    if (turn) return turn;
    // The default executor leaves evidence, as a real one would: src/<task>.txt, new content per attempt.
    if (kind === "execute-task")
      writeFile(
        repoRoot,
        `src/${entry.task ?? "task"}.txt`,
        `${entry.task ?? "task"} attempt ${calls.filter((c) => c.kind === kind && c.task === entry.task).length}\n`,
      );
    return defaultAnswer(entry);
  });
  // Sessions are deleted when closed, so remember how each was created.
  const created: Array<{ parentID?: string; title?: string; directory?: string }> = [];
  const create = fake.client.session.create.bind(fake.client.session);
  fake.client.session.create = (options) => {
    created.push({ parentID: options.body?.parentID, title: options.body?.title, directory: options.query?.directory });
    return create(options);
  };
  const progress: string[] = [];
  const toasts: string[] = [];
  const controller = new AbortController();
  const deps: ExecuteDeps = {
    runner: new SessionRunner({ client: fake.client, events: fake.events, log: silentLogger, env: ENV }, { concurrency: 8, graceMs: 50 }),
    client: fake.client,
    repoRoot,
    parentID: "ses_parent",
    signal: controller.signal,
    progress: (t) => progress.push(t),
    toast: (m) => toasts.push(m),
    models: { primary: "acme/primary-1", secondary: "acme/secondary-1" },
    settings: { ...SETTINGS, ...settings },
    git: runGit,
    background: new Background(),
    once: new Set(),
    secrets: [] as string[],
    log: silentLogger,
    env: ENV,
    now: () => new Date("2026-02-06T12:00:00.000Z"),
    codebaseSummary: () => Promise.resolve(undefined),
  };
  return {
    fake,
    deps,
    calls,
    created,
    progress,
    toasts,
    controller,
    repoRoot,
    /** Replaces the answers from now on. */
    answer: (next: typeof answer) => {
      respond = next;
    },
    specDir,
    write: (rel: string, text: string) => writeFile(repoRoot, rel, text),
    read: (rel: string) => fs.readFileSync(path.join(repoRoot, rel), "utf8"),
    tasks: () => fs.readFileSync(path.join(specDir, "tasks.md"), "utf8"),
    history: () => (fs.existsSync(path.join(specDir, "history")) ? fs.readdirSync(path.join(specDir, "history")).sort() : []),
    log: async () =>
      (await git(["log", "--format=%s%n%b%x1e"], repoRoot))
        .split("\x1e")
        .map((s) => s.trim())
        .filter(Boolean),
    status: () => git(["status", "--porcelain"], repoRoot),
    cleanup: () => fs.rmSync(repoRoot, { recursive: true, force: true }),
  };
}

function writeFile(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

export type Fake = Awaited<ReturnType<typeof fakeExecute>>;

/** `setup(…)` = fakeExecute, cleaned up after each test of the calling file. */
export function useFakeExecute(): (...args: Parameters<typeof fakeExecute>) => Promise<Fake> {
  const fakes: Fake[] = [];
  afterEach(() => {
    for (const f of fakes.splice(0)) f.cleanup();
  });
  return async (...args) => {
    const f = await fakeExecute(...args);
    fakes.push(f);
    return f;
  };
}

/** Task id → status, as tasks.md says now. */
export const statuses = (f: Fake) => Object.fromEntries(parseTasks(f.tasks()).tasks.tasks.map((t) => [t.id, t.status]));
/** The calls of one kind (and task). */
export const of = (calls: Call[], kind: Call["kind"], task?: string) =>
  calls.filter((c) => c.kind === kind && (task === undefined || c.task === task));
