import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { executeSpec, RunSessions, runOneTask, runSessionsFile } from "../../../src/execute/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { SLUG, useFakeExecute, statuses, of, type Fake } from "./fake-execute.ts";

const setup = useFakeExecute();
const ONE = tasksMd([["t1", "pending", 1, [], "Only"]]);
const QUIET = { taskBriefing: false, reviewGate: false, externalAssumptions: false, domainHardening: false, docsAlignment: false };

const recordOf = (f: Fake) => runSessionsFile(path.join(f.repoRoot, ".git"), SLUG);
const readRecord = (f: Fake): unknown => (fs.existsSync(recordOf(f)) ? JSON.parse(fs.readFileSync(recordOf(f), "utf8")) : undefined);

/** Sessions of a run that was killed: they exist in OpenCode and the run's record lists them. */
async function leftByACrash(f: Fake, extra: string[] = []): Promise<string[]> {
  const ids: string[] = [];
  for (const title of ["otto: t1 attempt 1", "otto: review"]) {
    const created = await f.fake.client.session.create({ body: { parentID: "ses_parent", title }, query: { directory: f.repoRoot } });
    ids.push(created.data?.id ?? "");
  }
  fs.writeFileSync(recordOf(f), JSON.stringify({ sessions: [...ids, ...extra] }));
  return ids;
}

/** OpenCode's answer for a session it does not have; every deletion asked for goes to `order`. */
function notFoundForUnknown(f: Fake, order: string[]): void {
  const remove = f.fake.client.session.delete.bind(f.fake.client.session);
  f.fake.client.session.delete = (options) => {
    order.push(`delete ${options.path.id}`);
    return f.fake.sessions.has(options.path.id)
      ? remove(options)
      : Promise.resolve({ error: { name: "NotFoundError", data: { message: `Session not found: ${options.path.id}` } } });
  };
}

describe("the run's record of its child sessions", () => {
  it("lists each session from before its first prompt until it is deleted; only ids are saved, and the record goes with the last session", async () => {
    const seen: unknown[] = [];
    const f = await setup(
      ONE,
      (call) => {
        seen.push({ session: call.sessionID, record: readRecord(f) });
        return undefined;
      },
      { ...QUIET, reviewGate: true },
    );
    await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed" });
    // The executor's and the reviewer's sessions, each listed while it was prompted.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const entry of seen as Array<{ session: string; record: { sessions: string[] } }>) {
      expect(Object.keys(entry.record)).toEqual(["sessions"]);
      expect(entry.record.sessions).toContain(entry.session);
    }
    expect(f.fake.sessions.size).toBe(0);
    expect(fs.existsSync(recordOf(f))).toBe(false);
    // Only the last commit's sha, written next to its tasks after it, waits for the next commit.
    expect(await f.status()).toBe(`M .otto/specs/${SLUG}/tasks.md`);
  });

  it("a re-run deletes the sessions a killed run left listed before any work, drops those OpenCode no longer has, and says so", async () => {
    const order: string[] = [];
    const f = await setup(ONE, (call) => void order.push(`prompt ${call.kind ?? "?"}`), QUIET);
    const orphans = await leftByACrash(f, ["ses_already_gone"]);
    notFoundForUnknown(f, order);
    const { output } = await executeSpec(f.deps);
    expect(order.slice(0, 4)).toEqual([...orphans.map((id) => `delete ${id}`), "delete ses_already_gone", "prompt execute-task"]);
    expect(f.fake.sessions.size).toBe(0);
    expect(output).toContain("Note: cleaned up 2 sessions left by the crashed run.");
    expect(fs.existsSync(recordOf(f))).toBe(false);
    expect(statuses(f)).toEqual({ t1: "completed" });
  });

  it("a session whose deletion fails stays listed, and the next run (task run too) deletes it", async () => {
    let failDeletes = true;
    const f = await setup(
      tasksMd([
        ["t1", "pending", 1, [], "First"],
        ["t2", "pending", 2, ["t1"], "Second"],
      ]),
      () => undefined,
      QUIET,
    );
    const remove = f.fake.client.session.delete.bind(f.fake.client.session);
    f.fake.client.session.delete = (options) =>
      failDeletes ? Promise.resolve({ error: { name: "UnknownError", data: { message: "disk full" } } }) : remove(options);
    await runOneTask(f.deps, undefined, "t1");
    const executor = of(f.calls, "execute-task", "t1")[0]?.sessionID;
    expect(executor).toBeDefined();
    expect(readRecord(f)).toEqual({ sessions: [executor] });

    failDeletes = false;
    const { output } = await runOneTask(f.deps, undefined, "t2");
    expect(output).toContain("Note: cleaned up 1 session left by the crashed run.");
    expect(f.fake.sessions.has(executor ?? "")).toBe(false);
    expect(fs.existsSync(recordOf(f))).toBe(false);
  });

  it("sessions opened at once share one write of the record, which lists them all", async () => {
    const f = await setup(ONE, () => undefined, QUIET);
    const { sessions } = await RunSessions.resume(recordOf(f), { client: f.fake.client, directory: f.repoRoot, log: silentLogger });
    const writes = ["ses_a", "ses_b", "ses_c", "ses_d"].map((id) => sessions.add(id));
    expect(new Set(writes).size).toBe(1);
    await Promise.all(writes);
    expect(readRecord(f)).toEqual({ sessions: ["ses_a", "ses_b", "ses_c", "ses_d"] });
    // Once that write has started, the next add waits for a write of its own that lists it too.
    const later = sessions.add("ses_e");
    expect(later).not.toBe(writes[0]);
    await sessions.remove("ses_a");
    await later;
    expect(readRecord(f)).toEqual({ sessions: ["ses_b", "ses_c", "ses_d", "ses_e"] });
  });
});
