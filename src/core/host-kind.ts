/**
 * What kind of OpenCode process otto runs in. `opencode run` exits at the first idle session, so
 * a schedule started there dies with the command; `serve` and the TUI live on.
 * (OpenCode's argv is ["bun", "/$bunfs/root/src/index.js", <subcommand>, …].)
 */
export function hostKind(argv: readonly string[] = process.argv): "run" | "serve" | "tui" {
  const sub = argv[2];
  if (sub === "run") return "run";
  return sub === "serve" || sub === "web" ? "serve" : "tui";
}
