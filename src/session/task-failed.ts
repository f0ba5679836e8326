/*
 * The executor agents' convention (agents/otto-executor.md): a session that could not do its job
 * ends its final message with a line `TASK_FAILED: <reason>`. Every flow that runs an executor
 * reads it here.
 */

const TASK_FAILED = /^\s*TASK_FAILED:\s*(.*)$/;

/**
 * The executor's own verdict: its final message ends with a line `TASK_FAILED: <reason>` when it
 * could not do the job (trailing blank lines and closing code fences are ignored). Returns the
 * reason, or undefined when the line is absent.
 */
export function taskFailedReason(finalMessage: string): string | undefined {
  const lines = finalMessage
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^`{3,}$/.test(l));
  const last = lines[lines.length - 1];
  if (last === undefined) return undefined;
  const match = TASK_FAILED.exec(last.replace(/^[*_`]+|[*_`]+$/g, ""));
  return match ? match[1]?.trim() || "(no reason given)" : undefined;
}
