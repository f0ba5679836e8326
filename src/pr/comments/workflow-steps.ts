import { formatError, redact } from "../../core/index.ts";
import type { PrBackend } from "../backend.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import type { PrStore } from "../store/store.ts";
import type { PrInfo, WorkflowAction } from "../types.ts";

/*
 * Once-per-PR provider steps after a poll (the Azure DevOps workflow): auto-complete and the work
 * item comment. Each is recorded in `workflow_done` once the provider did it, so a person who
 * later cancels auto-complete is not overruled. Providers without a step answer "not done" for
 * free (no request), and the step is asked again next poll, in case the config changes.
 */

const STEPS: ReadonlyArray<{ key: string; action: WorkflowAction }> = [
  { key: "auto_complete", action: "auto_complete" },
  { key: "work_item", action: "create_work_item" },
];

export interface WorkflowStepDeps {
  store: PrStore;
  now: () => Date;
  secrets: readonly string[];
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void;
}

export async function runWorkflowSteps(
  deps: WorkflowStepDeps,
  input: { doc: PrDocument; pr: PrInfo; backend: PrBackend },
): Promise<string[]> {
  const done: Array<{ key: string; message: string }> = [];
  for (const step of STEPS) {
    if (input.doc.data.workflow_done.includes(step.key)) continue;
    try {
      const result = await input.backend.runWorkflow(input.pr, step.action);
      if (result.done) done.push({ key: step.key, message: result.message });
    } catch (error) {
      // Recorded in the log only: the step is tried again next poll.
      deps.log("warn", `${step.action} on ${input.doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
    }
  }
  if (done.length === 0) return [];
  const now = deps.now().toISOString();
  await deps.store.update(input.doc.key, (current) => ({
    ...current,
    data: { ...current.data, workflow_done: [...new Set([...current.data.workflow_done, ...done.map((d) => d.key)])] },
    log: [...current.log, ...done.map((d) => logLine(now, d.message))],
  }));
  return done.map((d) => d.message);
}
