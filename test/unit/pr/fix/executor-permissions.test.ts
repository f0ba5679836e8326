import { describe, expect, it } from "vitest";
import { loadAgents } from "../../../../src/host/render-assets.ts";

/*
 * The executor edits PR branches but otto does every push (src/pr/git/push.ts). These rules are
 * evaluated the way OpenCode 1.18.33 does: each command of a bash call is matched whole against
 * every rule (Wildcard.match: `*` = anything, `?` = one character, the rest literal, a trailing
 * " *" optional, anchored), and the last matching rule wins (Permission.evaluate, findLast).
 * test/e2e/pr-review/pr-review-loop.test.ts checks the same against the real binary.
 */
function match(text: string, pattern: string): boolean {
  let re = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  if (re.endsWith(" .*")) re = `${re.slice(0, -3)}( .*)?`;
  return new RegExp(`^${re}$`, "s").test(text);
}

function decide(rules: Record<string, string>, command: string): string {
  return Object.entries(rules).findLast(([pattern]) => match(command, pattern))?.[1] ?? "ask";
}

const bashOf = (agent: string) => (loadAgents()[agent]?.permission as { bash: Record<string, string> }).bash;

describe.each(["otto-executor", "otto-crew"])("%s bash permissions", (agent) => {
  const bash = bashOf(agent);

  it.each([
    "git push",
    "git push origin feature",
    "git push --force origin feature",
    "git push -f",
    "git push -uf origin feature",
    "git push --delete origin feature",
    "git push origin :feature",
    "git push --mirror",
    "git push origin HEAD:main",
    "git push origin +HEAD:feature",
    "git -C . push --force",
    "git -C /tmp/x push origin HEAD:main",
    "git -c push.default=current push",
    "git -C . push",
  ])("denies %s", (command) => {
    expect(decide(bash, command)).toBe("deny");
  });

  it.each([
    "git status",
    "git commit -m 'fix the parser'",
    "git diff HEAD~1",
    "npm test",
    "git log --oneline",
    "git diff src/git/push.ts",
    "git log -p push.ts",
  ])("allows %s", (command) => {
    expect(decide(bash, command)).toBe("allow");
  });
});
