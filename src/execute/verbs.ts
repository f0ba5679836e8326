import { sendNotification } from "../notify/index.ts";
import { createExecuteDeps, type ExecuteInput } from "./deps.ts";
import { executeSpec } from "./execute-spec.ts";
import { runOneTask } from "./task-run.ts";

/**
 * The verbs as the tools call them: `/otto-spec execute`, the typed `otto_spec_execute` tool and
 * `/otto-spec task run` share these. Both block until the run ends (`opencode run` exits at its
 * session's first idle, so a headless run must finish inside the tool call) and report progress
 * through `input.progress` (the tool's live title).
 */
export async function executeVerb(input: ExecuteInput, spec?: string): Promise<{ title: string; output: string }> {
  const { title, output } = await executeSpec(await createExecuteDeps(input), spec);
  // People who configured notifications hear about a finished run wherever they are (never throws).
  await sendNotification(input.runtime, input.directory, { kind: "spec_finished", title, text: output.split("\n").slice(0, 12).join("\n") });
  return { title, output };
}

export async function taskRunVerb(input: ExecuteInput, spec?: string, id?: string): Promise<{ title: string; output: string }> {
  return runOneTask(await createExecuteDeps(input), spec, id);
}
