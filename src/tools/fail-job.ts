/**
 * A headless command's exit code (`opencode run --command …`, a CI job or a script): OpenCode's
 * own is 0 whatever a tool returned, so a command that refused or failed sets it, now and at exit
 * (every command's error path, src/tools/command.ts; `/otto-pr ci` also in a CI job).
 */
export function failJob(): void {
  process.exitCode = 1;
  process.once("exit", () => {
    process.exitCode = 1;
  });
}
