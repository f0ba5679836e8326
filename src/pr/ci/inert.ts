/*
 * Azure Pipelines' agent obeys a logging command anywhere in a line a step prints (`##vso[…]`,
 * found case-insensitively) and formats a line that starts with `##[` (`##[error]`, `##[group]`).
 * Otto prints text from the forge and from models (comment authors, check and file names, the
 * payload's names): under Azure (TF_BUILD set) each such `##` is split by a zero-width space, so
 * it reads the same to a person and is no command to the agent.
 * https://learn.microsoft.com/azure/devops/pipelines/scripts/logging-commands
 */

const COMMAND = /##(?=vso\[|\[)/gi;

/** `text` as otto may print it in a job whose environment is `env`. */
export function inertLog(text: string, env: Record<string, string | undefined>): string {
  return env.TF_BUILD ? text.replace(COMMAND, "#\u200b#") : text;
}
