import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { executeVerb } from "../../../src/execute/verbs.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { startFakeHttp, type FakeHttp } from "../../support/fake-http.ts";
import { SLUG, statuses, useFakeExecute } from "./fake-execute.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";
import { createSessionRunner } from "../../../src/session/index.ts";

/*
 * "Spec execution finished" reaches notify.webhooks through the execute verb itself (what
 * /otto-spec execute and otto_spec_execute call), not only through sendNotification.
 */

const setup = useFakeExecute();
const open: Array<{ hooks: FakeHttp; home: string }> = [];
afterEach(async () => {
  for (const { hooks, home } of open.splice(0)) {
    await hooks.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
});

/** A user config with models, no extra passes, and a json webhook pointing at a local receiver. */
async function userConfig(): Promise<{ env: Record<string, string>; hooks: FakeHttp }> {
  const hooks = await startFakeHttp({ handle: () => ({ status: 202 }), faultReply: () => ({ status: 500 }) });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-notify-home-"));
  open.push({ hooks, home });
  const config = {
    models: { primary: "acme/primary-1", secondary: "acme/secondary-1" },
    spec: { task_briefing: false, review_gate: false, external_assumptions: false, domain_hardening: false, docs_alignment: false },
    notify: { toast: false, webhooks: [{ type: "json", url: `${hooks.url}/hook` }] },
  };
  fs.mkdirSync(path.join(home, ".config", "otto"), { recursive: true });
  fs.writeFileSync(path.join(home, ".config", "otto", "otto.jsonc"), JSON.stringify(config));
  return { env: { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".local", "share") }, hooks };
}

describe("executeVerb notifies when a spec run finishes", () => {
  it("posts spec_finished with the run's title and summary to the configured webhook", async () => {
    const f = await setup(tasksMd([["t1", "pending", 1, [], "First"]]), (call) => {
      if (call.kind !== "execute-task") return undefined;
      f.write("src/t1.txt", "t1\n");
      return { text: "Created src/t1.txt." };
    });
    const { env, hooks } = await userConfig();
    // The engine shows toasts as it goes; the fake OpenCode has no TUI of its own.
    const client = Object.assign(f.fake.client, { tui: { showToast: () => Promise.resolve({}) } });
    const runtime = {
      client: client as unknown as Runtime["client"],
      directory: f.repoRoot,
      worktree: f.repoRoot,
      events: f.fake.events as unknown as Runtime["events"],
      log: silentLogger,
      env,
      once: new Set<string>(),
      secrets: new KnownSecrets(),
      sessions: createSessionRunner({
        client: client as unknown as Runtime["client"],
        events: f.fake.events as unknown as Runtime["events"],
        log: silentLogger,
        env,
      }),
      guard: {} as Runtime["guard"],
      meter: {} as Runtime["meter"],
    } satisfies Runtime;

    const { title, output } = await executeVerb({ runtime, sessionID: "ses_parent", directory: f.repoRoot, progress: () => undefined });

    expect(statuses(f)).toEqual({ t1: "completed" });
    const posted = hooks.calls.filter((c) => c.path === "/hook");
    expect(posted).toHaveLength(1);
    expect(posted[0]?.body).toMatchObject({
      source: "otto",
      event: "spec_finished",
      title,
      text: output.split("\n").slice(0, 12).join("\n"),
    });
    expect(title).toContain(SLUG);
  });

  it("a run that fails before it starts sends nothing (the error is the answer)", async () => {
    const f = await setup(tasksMd([["t1", "pending", 1, [], "First"]]), () => undefined);
    const { env, hooks } = await userConfig();
    const runtime = {
      client: f.fake.client,
      directory: f.repoRoot,
      worktree: f.repoRoot,
      events: f.fake.events,
      log: silentLogger,
      env,
      once: new Set<string>(),
      secrets: new KnownSecrets(),
      sessions: createSessionRunner({
        client: f.fake.client as unknown as Runtime["client"],
        events: f.fake.events as unknown as Runtime["events"],
        log: silentLogger,
        env,
      }),
    } as unknown as Runtime;
    await expect(
      executeVerb({ runtime, sessionID: "ses_parent", directory: f.repoRoot, progress: () => undefined }, "no-such-spec"),
    ).rejects.toMatchObject({ code: "spec_not_found" });
    expect(hooks.calls).toEqual([]);
  });
});
