import { describe, expect, it } from "vitest";
import type { Event } from "@opencode-ai/sdk";
import type { OpencodeClient } from "../../../src/runtime.ts";
import { askedPermission, isOttoSession, ownSession, permissionGuard } from "../../../src/session/permission-guard.ts";

/** The plugin client's two ways to answer a permission request, recorded; the new one can fail. */
function fakeClient(options: { replyFails?: boolean } = {}) {
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
      return { data: true };
    },
  } as unknown as OpencodeClient;
  const logs: string[] = [];
  const log = { log: (_level: string, message: string) => void logs.push(message) } as never;
  return { client, replies, legacy, logs, log };
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
