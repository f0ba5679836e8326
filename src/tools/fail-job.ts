/**
 * A headless command's exit code (`opencode run --command …`, a CI job or a script): OpenCode's
 * own is 0 whatever a tool returned, so a command that must fail its job sets it, now and at exit.
 */
export function failJob(): void {
  process.exitCode = 1;
  process.once("exit", () => {
    process.exitCode = 1;
  });
}
