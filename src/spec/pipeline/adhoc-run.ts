import { OttoError } from "../../core/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { inChild, type PassDialog } from "../../review/index.ts";
import { formatModel } from "../../session/index.ts";
import { ARTIFACTS } from "../layout.ts";
import { resolveStageModels, type SpecDeps } from "./deps.ts";
import type { VerbResult } from "./document-stage.ts";
import { saveHistory } from "./reviewed.ts";
import { readSpecDocs, type SpecDocs } from "./spec-files.ts";
import { resolveTarget } from "./target.ts";

/** Every spec file that exists, each under its repository-relative path (pure). */
export function specFilesContext(docs: SpecDocs, specDir: string): string {
  const files = ARTIFACTS.filter((a) => docs[a] !== undefined).map((a) => `## ${specDir}/${a}.md\n\n${(docs[a] ?? "").trim() || "(empty)"}`);
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
  const { paths, slug, rel } = target;
  const docs = await readSpecDocs(paths);
  const models = await resolveStageModels(deps);
  const specDir = rel(paths.dir);
  const codebase_summary = await deps.codebaseSummary(deps.repoRoot);
  const prompt = renderPrompt("spec-run", { request, spec_dir: specDir, spec_files: specFilesContext(docs, specDir), codebase_summary }, { env: deps.env });

  deps.progress(`primary working on the request (${formatModel(models.primary)})`);
  const dialogs: PassDialog[] = [];
  const options = {
    parentID: deps.parentID,
    directory: deps.repoRoot,
    agent: "otto-executor",
    model: models.primary,
    title: `otto: spec run ${slug}`,
    timeoutMs: deps.stageTimeoutMs,
    signal: deps.signal,
    keep: true,
  };
  const reply = await inChild(deps.runner, options, "run", async (child) => ({ ...(await child.prompt(prompt)), sessionID: child.id }), (d) => dialogs.push(d));
  const history = await saveHistory(deps, target, {
    stage: "run",
    slug,
    at: deps.now(),
    outcome: `ad-hoc run in session ${reply.sessionID} (kept)`,
    models: { primary: formatModel(models.primary) },
    dialogs,
  });
  const output = [
    reply.text || "_(the model returned no text)_",
    "",
    "---",
    `Session ${reply.sessionID} is kept (${formatModel(models.primary)}, agent otto-executor): open it under this conversation in the TUI to continue, or run \`opencode run --session ${reply.sessionID} "…"\`.`,
    ...models.notes.map((n) => `Note: ${n}`),
    ...(history ? [`History: ${rel(history)}`] : []),
    "",
    `Next step: continue in session ${reply.sessionID}, or /otto-spec list`,
  ].join("\n");
  return { title: `otto-spec run: ${slug} (session ${reply.sessionID})`, output };
}
