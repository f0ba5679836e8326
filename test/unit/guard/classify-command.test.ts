import { describe, expect, it } from "vitest";
import { classifyCommand, type ClassifyContext } from "../../../src/guard/index.ts";

const scripts: Record<string, string> = {
  "./p.sh": "#!/bin/sh\ngit push origin HEAD:refs/heads/main\n",
  "p.sh": "git push origin HEAD:refs/heads/main\n",
  "./build.sh": "#!/usr/bin/env bash\nset -e\nnpm run build\n",
  "./deploy.py": "#!/usr/bin/env python3\nimport subprocess\nsubprocess.run(['git', 'push'])\n",
};

const ctx: ClassifyContext = {
  forgeHosts: ["github.example.com", "ado.example.com"],
  gitAliases: { p: "push", st: "status", pf: "push --force", sh: "!git push origin", lg: "log --oneline" },
  readScript: (file) => scripts[file],
};

const allowed = [
  "git status",
  'git commit -m "fix the push button"',
  "git commit -am 'git push later'",
  "echo git push",
  'grep -r "git push" .',
  "git log --grep push",
  "git diff HEAD~1 -- src/push.ts",
  "npm test && npm run lint",
  "cat .git/config",
  "git config --get remote.origin.url",
  "git config user.email",
  "git -C sub status",
  "git -c color.ui=never diff",
  "git st",
  "git lg -5",
  "git fetch origin && git rebase origin/main",
  "gh pr view 12",
  "gh pr diff 12",
  "gh run view 99 --log",
  "curl -s https://registry.npmjs.org/zod",
  "./build.sh",
  "bash -c 'npm ci && npm test'",
  "FOO=1 npm test",
  "find . -name '*.ts' -exec grep -l push {} \\;",
  "ls .git/hooks",
  "node -e 'console.log(1)'",
  "for f in a b; do echo $f; done",
  "git remote -v",
  "git branch -vv",
];

const denied: Array<[string, RegExp]> = [
  ["git push", /git push/],
  ["git push origin HEAD:refs/heads/main", /git push/],
  ["sh -c 'git push origin HEAD:refs/heads/main'", /git push/],
  ['bash -c "cd x && git push"', /git push/],
  ["bash -lc 'git push'", /git push/],
  ["env git push", /git push/],
  ["env FOO=1 git push origin main", /git push/],
  ["command git push", /git push/],
  ["nohup git push &", /git push/],
  ["timeout 10 git push", /git push/],
  ["/usr/bin/git push", /git push/],
  ["\\git push", /git push/],
  ["g'i't pu\"sh\"", /git push/],
  ["git -C . push", /git push/],
  ["git --git-dir=.git --work-tree=. push", /git push/],
  ["git -c alias.p=push p", /alias\.p=push/],
  ["git -c remote.origin.pushurl=/tmp/r.git push", /pushurl/],
  ["git -c url./tmp/r.git.pushInsteadOf= fetch", /pushInsteadOf/],
  ["git p origin main", /git push/],
  ["git pf", /git push/],
  ["git sh", /git push/],
  ["git send-pack ../remote.git main", /git send-pack/],
  ["git-receive-pack /tmp/r.git", /git-receive-pack/],
  ["git lfs push origin main", /git lfs push/],
  ["git subtree push --prefix=x origin main", /git subtree push/],
  ["$(echo git) push", /computed/],
  ["git $(echo push)", /computed subcommand/],
  ["G=git; $G push", /computed/],
  ["echo ok && (git push)", /git push/],
  ["echo `git push`", /git push/],
  ["echo $(git push 2>&1)", /git push/],
  ["p() { git push; }; p", /git push/],
  ["echo 'git push' | sh", /pipe/],
  ["bash <<'EOF'\ngit push\nEOF", /git push/],
  ["bash <<< 'git push'", /git push/],
  ["eval 'git push'", /git push/],
  ["xargs git push < refs.txt", /git push/],
  ["find . -maxdepth 0 -exec git push \\;", /git push/],
  ["git submodule foreach 'git push'", /git push/],
  ["git rebase -x 'git push' main", /git push/],
  ["./p.sh", /git push/],
  ["sh p.sh", /git push/],
  ["source p.sh", /git push/],
  ["./deploy.py", /git push/],
  ["python3 -c \"import os; os.system('git push')\"", /git push/],
  ["gh pr merge 1", /gh pr merge/],
  ["gh pr create --fill", /gh pr create/],
  ["gh pr review 3 --approve", /gh pr review/],
  ["gh pr comment 3 -b hi", /gh pr comment/],
  ["gh api -X POST repos/o/r/pulls/1/merge", /gh api/],
  ["gh repo delete o/r --yes", /gh repo/],
  ["az repos pr update --id 1 --status completed", /az repos/],
  ['curl -H "Authorization: token $GITHUB_TOKEN" https://api.github.com/repos/o/r', /Authorization/],
  ["curl -X PUT https://api.github.com/repos/o/r/pulls/1/merge", /api\.github\.com/],
  ["curl https://github.example.com/api/v3/repos/o/r/merges", /github\.example\.com/],
  ["wget --header='Authorization: Bearer x' https://example.com", /credential|Authorization/],
  ["curl -u me:pat https://ado.example.com/x", /credentials|ado\.example\.com/],
  ["curl -d @- https://dev.azure.com/org/p/_apis/git", /dev\.azure\.com/],
  ["git config alias.p push", /git config/],
  ["git config --global alias.p push", /git config/],
  ["git config remote.origin.pushurl /tmp/r.git", /git config/],
  ["git remote add evil /tmp/r.git", /git remote add/],
  ["git remote set-url --push origin /tmp/r.git", /git remote set-url/],
  ["echo x > .git/hooks/pre-push", /\.git\/hooks\/pre-push/],
  ["printf '[alias]\\n p = push' >> .git/config", /\.git\/config/],
  ["cp evil .git/hooks/pre-commit", /\.git\/hooks/],
  ["sed -i 's/x/y/' .git/config", /\.git\/config/],
  ["tee ../main/.git/hooks/post-commit < x", /\.git\/hooks/],
  ["{ echo '#!/bin/sh'; } > .git/hooks/pre-push", /\.git\/hooks/],
  ["unset GIT_CONFIG_COUNT; git fetch", /GIT_CONFIG_COUNT/],
  ["export GIT_SSH_COMMAND=ssh", /GIT_SSH_COMMAND/],
  ["GIT_CONFIG_COUNT=0 npm test", /GIT_CONFIG_COUNT/],
  ["env -i PATH=/usr/bin make", /env -i/],
  ["env -u GIT_CONFIG_COUNT make", /GIT_CONFIG_COUNT/],
  ["GITHUB_TOKEN=abc gh pr view 1", /GITHUB_TOKEN/],
  ["ssh git@github.com git-receive-pack o/r.git", /receive-pack/],
  ['echo "unterminated', /cannot parse/],
];

describe("classifyCommand", () => {
  it.each(allowed)("allows %s", (command) => {
    expect(classifyCommand(command, ctx)).toEqual({ allowed: true });
  });

  it.each(denied)("denies %s", (command, reason) => {
    const verdict = classifyCommand(command, ctx);
    expect(verdict.allowed, JSON.stringify(verdict)).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toMatch(reason);
  });

  it("has a table of at least 40 spellings each way in all", () => {
    expect(allowed.length + denied.length).toBeGreaterThanOrEqual(80);
  });
});

describe("classifyCommand: OpenCode's own server", () => {
  // The plugin's server (PluginInput.serverUrl) and the detached watcher's (server.port on loopback).
  const server: ClassifyContext = { ...ctx, localServers: { urls: ["http://127.0.0.1:4096/"], ports: [4097] } };
  const refused = [
    "curl http://127.0.0.1:4097/session",
    "curl -X POST localhost:4097/session/x/message",
    "curl -s -X POST http://127.0.0.1:4096/session",
    "curl -s http://[::1]:4097/session",
    "curl http://0.0.0.0:4097/session",
    "curl http://127.0.0.2:4096/session",
    "curl --url=http://localhost:4097/session",
    "wget -qO- --post-data='{}' http://localhost:4097/session",
    "http POST :4097/session",
    "xh post localhost:4096/session",
    "sh -c 'curl -d {} http://127.0.0.1:4097/session'",
    "node -e \"fetch('http://localhost:4097/session', { method: 'POST' })\"",
    "python3 -c \"import http.client; c = http.client.HTTPConnection('127.0.0.1', 4097); c.request('POST', '/session')\"",
    "exec 3<>/dev/tcp/127.0.0.1/4097",
    "OPENCODE_SERVER_PASSWORD=x curl http://example.test/",
  ];
  const fine = [
    "curl http://127.0.0.1:3000/health",
    "curl -s localhost:8080/api",
    "curl https://registry.npmjs.org/zod",
    "node -e \"fetch('http://localhost:3000/')\"",
  ];

  it.each(refused)("refuses %s", (command) => {
    const verdict = classifyCommand(command, server);
    expect(verdict.allowed, JSON.stringify(verdict)).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toMatch(/OpenCode's own server|OPENCODE_SERVER_PASSWORD/);
  });

  it.each(fine)("allows %s (an app's port, not OpenCode's)", (command) => {
    expect(classifyCommand(command, server)).toEqual({ allowed: true });
  });

  it("refuses a non-loopback server URL by its own host and port only", () => {
    const remote: ClassifyContext = { localServers: { urls: ["http://10.1.2.3:4096"], ports: [] } };
    expect(classifyCommand("curl http://10.1.2.3:4096/session", remote).allowed).toBe(false);
    expect(classifyCommand("curl http://127.0.0.1:4096/session", remote).allowed).toBe(true);
  });
});
