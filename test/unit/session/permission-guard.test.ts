import { describe, expect, it } from "vitest";
import type { Event } from "@opencode-ai/sdk";
import type { OpencodeClient } from "../../../src/runtime.ts";
import { askedPermission, denialMessage, isOttoSession, ownSession, permissionGuard } from "../../../src/session/permission-guard.ts";

/** The plugin client's two ways to answer a permission request, recorded; the new one can fail. */
function fakeClient(options: { replyFails?: boolean; legacyFails?: boolean } = {}) {
  const replies: Array<Record<string, unknown>> = [];
  const legacy: Array<Record<string, unknown>> = [];
  const client = {
    _client: {
      post: async (request: Record<string, unknown>) => {
        replies.push(request);
        return options.replyFails ? { error: { name: "NotFound" } } : { data: true };
      },
    },
    postSessionIdPermissionsPermissionId: async (request: Record<string, unknown>) => {
      legacy.push(request);
      return options.legacyFails ? { error: { name: "NotFound" } } : { data: true };
    },
  } as unknown as OpencodeClient;
  const logs: string[] = [];
  const levels: string[] = [];
  const extras: unknown[] = [];
  const log = {
    log: (level: string, message: string, extra?: unknown) => {
      levels.push(level);
      logs.push(message);
      extras.push(extra);
    },
  } as never;
  return { client, replies, legacy, logs, levels, extras, log };
}

const asked = (sessionID: string, id = "per_1"): Event =>
  ({
    type: "permission.asked",
    properties: { id, sessionID, permission: "bash", patterns: ["git status"], metadata: {}, always: [] },
  }) as unknown as Event;
const created = (id: string, parentID: string, directory = "/wt/child"): Event =>
  ({ type: "session.created", properties: { info: { id, parentID, directory } } }) as unknown as Event;
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("permission guard", () => {
  it("rejects an ask of otto's unattended session with a reason for the model, in the session's directory", async () => {
    const f = fakeClient();
    const guard = permissionGuard({ client: f.client, log: f.log, headless: false });
    ownSession("ses_watch", "/wt/pr-7", false);
    guard(asked("ses_watch"));
    await settle();
    expect(f.replies).toEqual([
      expect.objectContaining({
        url: "/permission/{requestID}/reply",
        path: { requestID: "per_1" },
        query: { directory: "/wt/pr-7" },
        body: {
          reply: "reject",
          message: expect.stringContaining("nobody can answer the permission prompt for bash (git status)") as unknown,
        },
      }),
    ]);
    expect(f.logs).toEqual(["otto denied bash (git status) in its session ses_watch: nobody can answer a permission prompt there"]);
  });

  it("adopts subagent sessions of otto's sessions, and leaves everyone else's asks alone", async () => {
    const f = fakeClient();
    const guard = permissionGuard({ client: f.client, log: f.log, headless: true });
    ownSession("ses_exec", "/repo", true);
    guard(created("ses_sub", "ses_exec"));
    guard(created("ses_user_child", "ses_someone_else"));
    expect(isOttoSession("ses_sub")).toBe(true);
    expect(isOttoSession("ses_user_child")).toBe(false);
    guard(asked("ses_sub", "per_sub"));
    guard(asked("ses_user_child", "per_user"));
    guard(asked("ses_unknown", "per_unknown"));
    await settle();
    expect(f.replies.map((r) => [(r.path as { requestID: string }).requestID, (r.query as { directory: string }).directory])).toEqual([
      ["per_sub", "/wt/child"],
    ]);
  });

  it("in the TUI, a session shown under the user's conversation keeps its prompt for the user", async () => {
    const f = fakeClient();
    const guard = permissionGuard({ client: f.client, log: f.log, headless: false });
    ownSession("ses_visible", "/repo", true);
    guard(asked("ses_visible"));
    await settle();
    expect(f.replies).toEqual([]);
  });

  it("falls back to the older permission endpoint when the reply endpoint is refused", async () => {
    const f = fakeClient({ replyFails: true });
    const guard = permissionGuard({ client: f.client, log: f.log, headless: true });
    ownSession("ses_old", "/repo", true);
    guard(asked("ses_old", "per_old"));
    await settle();
    expect(f.legacy).toEqual([
      { path: { id: "ses_old", permissionID: "per_old" }, query: { directory: "/repo" }, body: { response: "reject" } },
    ]);
  });

  it("reads both 1.18's permission.asked and the v1 permission.updated", () => {
    expect(
      askedPermission({ type: "permission.updated", properties: { id: "p", sessionID: "s", type: "edit", pattern: "src/*" } }),
    ).toEqual({ id: "p", sessionID: "s", permission: "edit", patterns: ["src/*"] });
    expect(askedPermission({ type: "session.idle", properties: {} })).toBeUndefined();
  });
});

describe("permission guard: what it reads and answers", () => {
  it("reads only permission events that name a request and a session", () => {
    expect(askedPermission({ type: "session.idle", properties: { id: "p", sessionID: "s", permission: "bash" } })).toBeUndefined();
    expect(askedPermission({ type: "permission.asked", properties: { sessionID: "s", permission: "bash" } })).toBeUndefined();
    expect(askedPermission({ type: "permission.asked", properties: { id: "p", permission: "bash" } })).toBeUndefined();
    expect(askedPermission({ type: "permission.asked", properties: { id: 1, sessionID: "s" } })).toBeUndefined();
    expect(askedPermission({ type: "permission.asked" })).toBeUndefined();
  });

  it("takes the patterns as a list, a single pattern or none, and names an unnamed permission 'unknown'", () => {
    expect(askedPermission({ type: "permission.asked", properties: { id: "p", sessionID: "s" } })).toEqual({
      id: "p",
      sessionID: "s",
      permission: "unknown",
      patterns: [],
    });
    expect(
      askedPermission({ type: "permission.updated", properties: { id: "p", sessionID: "s", type: 3, pattern: ["a", ["b"]] } }),
    ).toEqual({
      id: "p",
      sessionID: "s",
      permission: "unknown",
      patterns: ["a", "b"],
    });
    expect(
      askedPermission({
        type: "permission.asked",
        properties: { id: "p", sessionID: "s", permission: "edit", type: "x", patterns: [1, "y"] },
      }),
    ).toEqual({
      id: "p",
      sessionID: "s",
      permission: "edit",
      patterns: ["1", "y"],
    });
  });

  it("the denial names the permission, and its patterns only when there are some", () => {
    const base = { id: "p", sessionID: "s", permission: "bash" };
    expect(denialMessage({ ...base, patterns: [] })).toBe(
      "Denied by otto: this session runs unattended, so nobody can answer the permission prompt for bash. Do the work without it; if you cannot, say in your reply what you needed and why.",
    );
    expect(denialMessage({ ...base, patterns: ["a", "b"] })).toContain("prompt for bash (a, b). Do the work");
  });

  it("answers once, through the reply endpoint when it takes the answer, and logs a warning naming what it denied", async () => {
    const f = fakeClient();
    const guard = permissionGuard({ client: f.client, log: f.log, headless: true });
    ownSession("ses_once", "/repo", true);
    guard({ type: "permission.asked", properties: { id: "per_np", sessionID: "ses_once", permission: "webfetch" } } as unknown as Event);
    await settle();
    expect(f.replies).toHaveLength(1);
    expect(f.legacy).toEqual([]);
    expect(f.levels).toEqual(["warn"]);
    expect(f.logs).toEqual(["otto denied webfetch in its session ses_once: nobody can answer a permission prompt there"]);
    guard({
      type: "permission.asked",
      properties: { id: "per_two", sessionID: "ses_once", permission: "bash", patterns: ["a", "b"] },
    } as unknown as Event);
    expect(f.logs[1]).toBe("otto denied bash (a, b) in its session ses_once: nobody can answer a permission prompt there");
  });

  it("when neither endpoint takes the answer (another client answered first), logs that and goes on", async () => {
    const f = fakeClient({ replyFails: true, legacyFails: true });
    const guard = permissionGuard({ client: f.client, log: f.log, headless: true });
    ownSession("ses_both", "/repo", true);
    guard(asked("ses_both", "per_both"));
    await settle();
    await settle();
    expect(f.legacy).toHaveLength(1);
    expect(f.levels).toEqual(["warn", "warn"]);
    expect(f.logs[1]).toBe("otto could not answer the permission request per_both");
    expect(JSON.stringify(f.extras[1])).toContain("OpenCode refused the permission reply");
  });

  it("without the reply endpoint (an older client), the older endpoint answers", async () => {
    const f = fakeClient();
    const legacy = (f.client as unknown as { postSessionIdPermissionsPermissionId: (r: unknown) => Promise<unknown> })
      .postSessionIdPermissionsPermissionId;
    const client = { postSessionIdPermissionsPermissionId: (r: unknown) => legacy(r) } as unknown as OpencodeClient;
    const guard = permissionGuard({ client, log: f.log, headless: true });
    ownSession("ses_plain", "/repo", true);
    guard(asked("ses_plain", "per_plain"));
    await settle();
    expect(f.legacy).toHaveLength(1);
    expect(f.logs).toHaveLength(1);
  });

  it("events without what it looks for pass by; a child without a directory lives in its parent's", () => {
    const f = fakeClient();
    const guard = permissionGuard({ client: f.client, log: f.log, headless: true });
    expect(() => guard({ type: "session.created" } as unknown as Event)).not.toThrow();
    expect(() => guard({ type: "session.created", properties: {} } as unknown as Event)).not.toThrow();
    expect(() => guard({ type: "session.idle", properties: { sessionID: "x" } } as unknown as Event)).not.toThrow();
    ownSession("ses_parent_dir", "/parent", false);
    guard({ type: "session.created", properties: { info: { id: "ses_child_dir", parentID: "ses_parent_dir" } } } as unknown as Event);
    guard({ type: "session.created", properties: { info: { parentID: "ses_parent_dir" } } } as unknown as Event);
    guard(asked("ses_child_dir", "per_child"));
    return settle().then(() => expect(f.replies.map((r) => r.query)).toEqual([{ directory: "/parent" }]));
  });

  it("remembers the newest 10,000 sessions", () => {
    for (let i = 0; i < 10_000; i++) ownSession(`ses_bound_${i}`, "/repo", false);
    expect(isOttoSession("ses_bound_0")).toBe(true);
    ownSession("ses_bound_0", "/repo", false); // owned again: the newest now
    ownSession("ses_bound_new", "/repo", false);
    expect(isOttoSession("ses_bound_0")).toBe(true);
    expect(isOttoSession("ses_bound_1")).toBe(false);
    expect(isOttoSession("ses_bound_2")).toBe(true);
  });
});
