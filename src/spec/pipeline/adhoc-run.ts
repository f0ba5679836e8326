import fs from "node:fs/promises";
import { OttoError, assertOttoPathSafe } from "../../core/index.ts";
import { formatUsage } from "../../cost/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { inChild, type PassDialog } from "../../review/index.ts";
import { formatModel } from "../../session/index.ts";
import { ARTIFACTS, type SpecPaths } from "../layout.ts";
import { resolvePrimaryModel, type SpecDeps } from "./deps.ts";
import type { VerbResult } from "./document-stage.ts";
import { historyFileName } from "./history.ts";
import { extractOpenQuestions } from "./open-questions.ts";
import { isoDate, recordRaisedQuestions } from "./questions-file.ts";
import { passRows, passTable } from "./render-output.ts";
import { saveHistory } from "./reviewed.ts";
import { checkQuestionsEdit, checkTasksEdit, type RunEdit } from "./run-guard.ts";
import { readSpecDocs, updateSpecFile, writeHistoryFile, type SpecDocs } from "./spec-files.ts";
import { outcomeOf, runStage, StageRun } from "./stage-run.ts";
import { resolveTarget, type SpecTarget } from "./target.ts";

/** Every spec file that exists, each under its repository-relative path (pure). */
export function specFilesContext(docs: SpecDocs, specDir: string): string {
  const files = ARTIFACTS.filter((a) => docs[a] !== undefined).map(
    (a) => `## ${specDir}/${a}.md\n\n${(docs[a] ?? "").trim() || "(empty)"}`,
  );
  return files.length > 0 ? files.join("\n\n") : "(the spec has no documents yet)";
}

/**
 * `/otto-spec run <prompt>`: an ad-hoc prompt with the whole spec as context, on the primary
 * model with the executor agent (the user may ask for edits), no review and no gate. The session
 * is kept so the user can continue the conversation.
 */
export async function runAdhoc(deps: SpecDeps, flag: string | undefined, request: string): Promise<VerbResult> {
  if (!request.trim()) throw new OttoError("usage", "The prompt is empty.", '/otto-spec run "<what to do with the spec>"');
  const target = resolveTarget(deps.repoRoot, flag, "run");
  const run = new StageRun(deps, "run", target.slug, `/otto-spec run --spec ${target.slug} "<prompt>"`, deps.now());
  const dialogs: PassDialog[] = [];
  const checked: string[] = [];
  return runStage(
    deps,
    run,
    () => adhoc(deps, target, run, request, dialogs, checked),
    () => {
      const session = dialogs[0]?.sessionID;
      return {
        undone: [
          `the request was not finished${session ? `: session ${session} was stopped and is kept; continue it under this conversation in the TUI once the budget allows` : ""}`,
        ],
        notes:
          checked.length > 0
            ? checked
            : ["tasks.md and questions.md were checked after the stop: both are valid, as the session left them."],
        rel: target.rel,
      };
    },
  );
}

async function adhoc(
  deps: SpecDeps,
  target: SpecTarget,
  stageRun: StageRun,
  request: string,
  dialogs: PassDialog[],
  checked: string[],
): Promise<VerbResult> {
  const { paths, slug, rel } = target;
  const docs = await readSpecDocs(paths);
  // No review: only the primary is used, so an unset secondary is neither resolved nor reported.
  const models = await resolvePrimaryModel(deps);
  const specDir = rel(paths.dir);
  const codebase_summary = await deps.codebaseSummary(deps.repoRoot);
  const prompt = renderPrompt(
    "spec-run",
    { request, spec_dir: specDir, spec_files: specFilesContext(docs, specDir), codebase_summary },
    { env: deps.env },
  );

  deps.progress(`primary working on the request (${formatModel(models.primary)})`);
  const options = {
    account: stageRun.pass("run", formatModel(models.primary)),
    parentID: deps.parentID,
    directory: deps.repoRoot,
    agent: "otto-executor",
    model: models.primary,
    title: `otto: spec run ${slug}`,
    timeoutMs: deps.stageTimeoutMs,
    signal: deps.signal,
    keep: true,
  };
  const guard = async (at: Date) => [
    ...(await guardEdit(target, "tasks", docs.tasks, checkTasksEdit, at, deps.secrets)),
    ...(await guardEdit(target, "questions", docs.questions, checkQuestionsEdit, at, deps.secrets)),
  ];
  let reply: { text: string; sessionID: string };
  try {
    reply = await inChild(
      deps.runner,
      options,
      "run",
      async (child) => ({ ...(await child.prompt(prompt)), sessionID: child.id }),
      (d) => dialogs.push(d),
    );
  } catch (error) {
    // A run that failed or was cancelled midway may have left a half-edited file behind.
    const at = deps.now();
    const notes = await guard(at);
    await saveHistory(
      deps,
      target,
      { stage: "run", slug, at, outcome: outcomeOf(error), models: { primary: formatModel(models.primary) }, notes, dialogs },
      stageRun,
    );
    checked.push(...notes);
    throw error;
  }
  const at = deps.now();
  const checks = await guard(at);
  const questions = await recordRaisedQuestions(paths, extractOpenQuestions(reply.text), `run (${isoDate(at)})`, deps.secrets);
  const raised = questions.added.map((q) => `Q${q.number} raised: ${q.title}`);
  const history = await saveHistory(
    deps,
    target,
    {
      stage: "run",
      slug,
      at,
      outcome: `ad-hoc run in session ${reply.sessionID} (kept)`,
      models: { primary: formatModel(models.primary) },
      notes: [...checks, ...raised],
      dialogs,
    },
    stageRun,
  );
  const spend = stageRun.spend();
  const output = [
    reply.text || "_(the model returned no text)_",
    "",
    "---",
    ...checks,
    ...(raised.length > 0 ? [`Questions ${raised.join(", ")}; added to ${rel(paths.questions)}.`] : []),
    `Session ${reply.sessionID} is kept (${formatModel(models.primary)}, agent otto-executor): open it under this conversation in the TUI to continue, or run \`opencode run --session ${reply.sessionID} "…"\`.`,
    ...models.notes.map((n) => `Note: ${n}`),
    "",
    passTable(passRows(spend.passes, [`session ${reply.sessionID} (kept)`]), spend.usage),
    ...(history ? ["", `History: ${rel(history)}`] : []),
    "",
    `Next step: continue in session ${reply.sessionID}, or /otto-spec list`,
  ].join("\n");
  return { title: `otto-spec run: ${slug} (session ${reply.sessionID}, ${formatUsage(spend.usage)})`, output };
}

/**
 * Re-reads a spec file the run may have edited and applies the run guard's verdict under the
 * file's lock: repaired (completed tasks restored) or restored to its previous text, with the
 * run's version kept under history/ so nothing it wrote is lost. Returns lines for the output.
 */
async function guardEdit(
  target: SpecTarget,
  file: "tasks" | "questions",
  before: string | undefined,
  check: (before: string | undefined, after: string | undefined) => RunEdit,
  at: Date,
  secrets: readonly string[],
): Promise<string[]> {
  const { paths, rel } = target;
  const name = `${file}.md`;
  const edit = await updateSpecFile<{ verdict: RunEdit; after: string | undefined }>(
    paths[file],
    (after) => {
      const verdict = check(before, after);
      const text = verdict.action === "write" ? verdict.text : verdict.action === "restore" ? before : undefined;
      return { text, result: { verdict, after } };
    },
    secrets,
  );
  const { verdict, after } = edit;
  if (verdict.action === "keep") return [];
  if (verdict.action === "write") return verdict.notes.map((n) => `Restored in ${name}: ${n}`);
  if (before === undefined) {
    await assertOttoPathSafe(paths[file]);
    await fs.rm(paths[file], { force: true });
  }
  const kept = after === undefined ? undefined : await keepRejected(paths, at, file, after, secrets);
  return [
    `Warning: the run left ${rel(paths[file])} invalid, so ${before === undefined ? "it was removed" : "its previous version was restored"}` +
      `${kept ? ` (the run's version is in ${rel(kept)})` : ""}. Problems:`,
    ...verdict.problems.split("\n").map((p) => `  ${p}`),
  ];
}

function keepRejected(paths: SpecPaths, at: Date, file: string, text: string, secrets: readonly string[]): Promise<string> {
  return writeHistoryFile(paths, historyFileName(at, `run-rejected-${file}`), text, secrets);
}
