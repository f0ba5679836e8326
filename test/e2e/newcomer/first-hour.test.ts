import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, slashCommand, until, useE2E, type Workspace } from "../../support/index.ts";
import { ottoCommand } from "../pr/forges.ts";

/*
 * The first hour of a new user, headless, as the README and docs/configuration.md write the
 * commands: a fresh home, no otto config, no models set. Each command either does its work and
 * exits 0, or says why (and what to run next) and exits non-zero. `opencode run` only where the
 * exit code or OpenCode's own argument passing is the point; the rest share one served OpenCode.
 */
describe("a newcomer's first hour, headless", () => {
  const e2e = useE2E();

  const toolOf = (command: string): string =>
    command.startsWith("otto-") ? command.replace(/-/g, "_") : `otto_${command.replace(/-/g, "_")}`;

  async function headless(ws: Workspace, command: string, args: string[], cwd?: string) {
    e2e.model.script(...slashCommand(toolOf(command)));
    return e2e.run(ws, ["run", "--command", command, "--", ...args], cwd ? { cwd } : {});
  }

  const repoConfig = (ws: Workspace): unknown => JSON.parse(ws.readFile(".otto/otto.jsonc"));

  /** Running, not a zombie: the background serve's parent (the run) is gone, and whoever inherits it may not reap it at once. */
  const alive = (pid: number): boolean => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
      return false;
    }
  };

  it("opencode run: set takes numbers and JSON lists, refusals exit non-zero and say why", async () => {
    const ws = await e2e.workspace();

    // OpenCode 1.18.33 cannot pass a bare number after `--`: its own `run` fails before otto is
    // called ("G.includes is not a function"). The spellings below reach otto.
    const bare = await headless(ws, "otto-config", ["set", "spec.max_parallel_tasks", "2"]);
    expect(bare.exitCode).toBe(1);
    expect(bare.stderr).toContain("includes is not a function");

    const eq = await headless(ws, "otto-config", ["set", "spec.max_parallel_tasks=2"]);
    expect(eq.exitCode, eq.stderr).toBe(0);
    expect(eq.stdout).toContain("Set spec.max_parallel_tasks in the repo config");
    expect(repoConfig(ws)).toMatchObject({ spec: { max_parallel_tasks: 2 } });

    // A wrapper passes the whole command as one argument.
    const whole = await headless(ws, "otto-config", ["set spec.max_parallel_tasks 3"]);
    expect(whole.exitCode, whole.stderr).toBe(0);
    expect(repoConfig(ws)).toMatchObject({ spec: { max_parallel_tasks: 3 } });

    // OpenCode quotes an argument with spaces and escapes its quotes: otto undoes both.
    const list = await headless(ws, "otto-config", ["set", "spec.verify", '["npm test", "npm run lint"]']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toContain('after:  ["npm test","npm run lint"]');
    expect(repoConfig(ws)).toMatchObject({ spec: { verify: ["npm test", "npm run lint"] } });

    const refused = await headless(ws, "otto-config", ["set", "spec.max_parallel_tasks", "abc"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain("the file was not changed");
    expect(refused.stdout).toContain('spec.max_parallel_tasks: expected a number, found "abc" (string)');
    expect(refused.stdout).toContain("Next step: Run /otto-config set spec.max_parallel_tasks <value> again");
    expect(repoConfig(ws)).toMatchObject({ spec: { max_parallel_tasks: 3 } });

    // No spec yet: execute refuses, names the next command, and the script can tell.
    const execute = await headless(ws, "otto-spec", ["execute"]);
    expect(execute.exitCode).toBe(1);
    expect(execute.stdout).toMatch(/^Error: .*\nNext step: .*\/otto-(spec add|build plan)/m);

    // Outside a git repository, /pr-review says so instead of the PR-creation advice.
    const outside = path.join(ws.root, "not-a-repo");
    fs.mkdirSync(outside);
    const review = await headless(ws, "pr-review", [], outside);
    expect(review.exitCode).toBe(1);
    expect(review.stdout).toContain(`${outside} is not inside a git repository`);
    expect(review.stdout).toContain("Next step: Name the PR: /pr-review <url>");
    expect(review.stdout).not.toContain("/otto-pr create");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a served OpenCode: show names what unset roles mean, cost takes a quoted command line, watch start warns", async () => {
    const ws = await e2e.workspace();
    const { client } = await e2e.serve(ws);
    const command = async (name: string, args: string): Promise<string> => {
      e2e.model.script(...slashCommand(toolOf(name)));
      return ottoCommand(client, name, args);
    };

    const shown = await command("otto-config", "show");
    expect(shown).toContain("- models.primary: unset. Commands you run use your session's model instead (and say so), but the PR watcher");
    expect(shown).toContain("no second opinion");

    const cost = await command("otto-cost", `"--since 7d --by spec"`);
    expect(cost).not.toContain("Error");
    expect(cost).not.toContain("To specify a positional argument");

    // In a served OpenCode the watcher runs in that process (headless `opencode run` would need --detach).
    const started = await command("otto-pr", "watch start");
    expect(started).toMatch(/every 2m; first cycle now/);
    expect(started).toContain("Warning: models.primary is not set (nor models.fix)");
    expect(started).toContain("Warning: no PR is tracked, so the watcher has nothing to poll yet.");
    expect(await command("otto-pr", "watch stop")).toContain("Stopped the PR watcher");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("opencode run: pr add with no token and the host unreachable names both at once and exits 1; ci init refuses a local model; watch start --detach with no models warns", async () => {
    // Nothing listens on `closed`: the forges' base URLs point there (the one setting a newcomer would not have).
    const closed = await freePort();
    const ws = await e2e.workspace({
      userOttoConfig: {
        pr: { providers: { github: { api_url: `http://127.0.0.1:${closed}` }, ado: { base_url: `http://127.0.0.1:${closed}` } } },
        server: { port: await freePort() },
      },
    });

    const github = await headless(ws, "otto-pr", ["add", "https://github.com/octo/app/pull/7"]);
    expect(github.exitCode, github.stderr).toBe(1);
    // Refused at once: the message counts attempts when there were retries, and there are none.
    expect(github.stdout).toMatch(
      new RegExp(
        `^Error: GitHub could not be reached while reading .*: 127\\.0\\.0\\.1:${closed}: the connection was refused[^;]*; no HTTP status came back\\. ` +
          "Also, otto found no GitHub token \\(pr\\.providers\\.github\\.token, GITHUB_TOKEN, GH_TOKEN or `gh auth token`\\)\\.$",
        "m",
      ),
    );
    expect(github.stdout).toContain(`Next step: Check that http://127.0.0.1:${closed} is reachable from this machine`);
    expect(github.stdout).not.toContain("next poll");

    const ado = await headless(ws, "otto-pr", ["add", "https://dev.azure.com/contoso/payments/_git/app/pullrequest/7"]);
    expect(ado.exitCode, ado.stderr).toBe(1);
    expect(ado.stdout).toMatch(
      new RegExp(
        `^Error: Azure DevOps could not be reached for GET /contoso/payments/_apis/git/pullrequests/7: 127\\.0\\.0\\.1:${closed}: the connection was refused[^;]*; no HTTP status came back\\. ` +
          "Also, otto found no Azure DevOps credentials \\(pr\\.providers\\.ado\\.pat, OTTO_ADO_PAT or `az account get-access-token`\\)\\.$",
        "m",
      ),
    );
    expect(ado.stdout).toContain(`Next step: Check that http://127.0.0.1:${closed}/contoso is reachable from this machine`);
    // Nothing was tracked.
    const prs = path.join(ws.dirs.dataHome, "otto", "prs");
    expect(fs.existsSync(prs) ? fs.readdirSync(prs) : []).toEqual([]);

    // No models set, the session's model served on this machine, no remote: ci init refuses and writes nothing.
    const ci = await headless(ws, "otto-pr", ["ci", "init", "github"]);
    expect(ci.exitCode, ci.stderr).toBe(1);
    expect(ci.stdout).toContain("served on this machine by");
    expect(ci.stdout).toContain(
      "Next step: Set the roles the job uses to hosted models with an API key, e.g. /otto-config set models.primary",
    );
    expect(fs.existsSync(path.join(ws.project, ".github"))).toBe(false);

    // No models and no PR: the background watcher starts (the user asked for it) and says what it lacks.
    const detached = await headless(ws, "otto-pr", ["watch", "start", "--detach"]);
    expect(detached.exitCode, detached.stderr).toBe(0);
    expect(detached.stdout).toMatch(/^Started the PR watcher in the background: opencode serve \(pid \d+\)/m);
    expect(detached.stdout).toContain("Warning: models.primary is not set (nor models.fix)");
    expect(detached.stdout).toContain("Warning: no PR is tracked, so the watcher has nothing to poll yet.");
    // The run's harness ends everything the run started, the background serve too (it inherits the
    // harness's process token; a process past its last breath may linger a moment in /proc); the
    // guard below ends it should that ever change.
    const pid = Number(/opencode serve \(pid (\d+)\)/.exec(detached.stdout)?.[1]);
    try {
      await until("the background serve to end with its run", () => !alive(pid), 10_000, 50);
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
