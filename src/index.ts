import type { Plugin, PluginModule } from "@opencode-ai/plugin";
// Direct imports, not the core barrel: the barrel pulls in file locking and more, and load time counts.
import { formatError } from "./core/errors.ts";
import type { CrewService } from "./crew/index.ts";
import { crewMayExist, crewsExist } from "./host/crew-present.ts";
import { hardenHostGit } from "./host/host-git.ts";
import { commandOutput, OTTO_COMMANDS } from "./host/command-output.ts";
import { AGENTS } from "./host/asset-manifest.ts";
import { registerOtto } from "./host/register.ts";
import { checkHostVersion } from "./host/version.ts";
import { hostKind } from "./core/host-kind.ts";
import { createRuntime } from "./runtime.ts";
import { permissionGuard } from "./session/permission-guard.ts";
import { buildTools } from "./tools/index.ts";

/**
 * The otto plugin. Loading must stay cheap and must never fail: configuration is read and
 * validated when a command runs, not here, so a broken otto.jsonc cannot stop OpenCode. Otto's
 * subsystems are imported on first use (a tool call, a session event), not at load.
 */
const OttoPlugin: Plugin = async (input) => {
  // OpenCode's own git (its snapshots) runs no fsmonitor program a tree planted (host/host-git.ts).
  hardenHostGit();
  const runtime = createRuntime(input);
  const { events, log } = runtime;
  const report = (what: string) => (error: unknown) => log.log("warn", `otto: ${what} failed`, { error: formatError(error) });

  // The crew reacts to session.idle / session.error (wake-ups, failures). It is loaded by the first
  // such event in a project that has a crew, or by the first otto tool call; from then on it sees
  // every event (its prompt gates).
  let crew: CrewService | undefined;
  let crewLoading: Promise<CrewService> | undefined;
  const loadCrew = () => (crewLoading ??= import("./crew/index.ts").then((m) => (crew = m.crewFor(runtime))));
  events.on((event) => {
    if (crew) return crew.onEvent(event);
    if (
      (event.type === "session.idle" || event.type === "session.error") &&
      (crewsExist(runtime.env) || crewMayExist(runtime.directory) || crewMayExist(runtime.worktree))
    ) {
      loadCrew().then((loaded) => loaded.onEvent(event), report("crew event"));
    }
  });
  // Messages other crews left for this directory's crew while no OpenCode ran here are delivered
  // now; after the load, so OpenCode's own start is not held up.
  if (crewsExist(runtime.env) || crewMayExist(runtime.directory)) {
    setTimeout(() => {
      loadCrew().then((loaded) => loaded.start(), report("crew start"));
    }, 0).unref?.();
  }

  // A subagent started by a guarded session is guarded too (otto's agents deny `task`; this holds
  // for any other way a guarded session starts one). A deleted session's call counts go.
  events.on((event) => {
    if (event.type === "session.created") runtime.guard.noteSession(event.properties.info.id, event.properties.info.parentID);
    else if (event.type === "session.deleted") runtime.guard.forget(event.properties.info.id);
    else if (event.type === "message.part.updated") {
      const part = event.properties.part;
      if (part.type === "tool" && (part.state.status === "completed" || part.state.status === "error"))
        runtime.guard.toolEnded(part.callID);
    }
    // A session's turn ended: what its sandboxed commands left in the tree is looked at once more.
    else if (event.type === "session.idle" || event.type === "session.error") {
      const id = event.properties.sessionID;
      if (id) void runtime.guard.sessionEnded(id);
    }
  });

  // Otto's child sessions never wait on a permission prompt nobody can answer (OpenCode 1.18 does not call `permission.ask`).
  events.on(permissionGuard({ client: input.client, log, headless: hostKind() !== "tui" }));

  // A headless `opencode serve` started by `/otto-pr watch start --detach` (or the systemd unit)
  // carries OTTO_WATCH=1: only then does otto start its PR watcher on load. autostart never throws.
  if (process.env.OTTO_WATCH === "1") {
    void checkHostVersion(input.client, log);
    import("./pr/index.ts").then((m) => m.watchControllerFor(runtime).autostart(), report("watcher start"));
  }

  // In the TUI otto shows a slash command's output itself (src/host/command-output.ts).
  const tui = hostKind() === "tui";
  const shown = tui ? commandOutput({ client: input.client, log, commands: OTTO_COMMANDS }) : undefined;
  if (shown) events.on((event) => shown.onEvent(event));

  return {
    config: async (config) => {
      try {
        runtime.guard.noteHostConfig(config);
        registerOtto(config, undefined, { tui });
        // The prompts OpenCode will send for otto's agents: the system transform below splits at them.
        runtime.sessions.stable?.noteAgents(config.agent, Object.keys(AGENTS));
      } catch (error) {
        log.log("error", "otto could not register its agents and commands", { error: formatError(error) });
      }
    },
    event: async ({ event }) => {
      runtime.events.emit(event);
    },
    // The host's version is asked on the first otto tool call, not at load: the request would be
    // the first the server answers, and its start-up work would hold up OpenCode's own start.
    tool: buildTools(runtime, () => {
      void checkHostVersion(input.client, log);
      void loadCrew().catch(report("crew load"));
    }),
    // The push guard (src/guard): otto's sessions, known by id or by agent, cannot push, merge or
    // call a forge; their shells get an environment where no push succeeds.
    "chat.message": async (hookInput) => runtime.guard.noteAgent(hookInput.sessionID, hookInput.agent),
    "chat.params": async (hookInput) => {
      runtime.guard.noteAgent(hookInput.sessionID, hookInput.agent);
      // A session otto stopped (a repeated call, a spent budget) makes no further call: its abort
      // races OpenCode's next step, which starts as soon as a tool returns.
      const stop = runtime.guard.stopReason(hookInput.sessionID);
      if (stop !== undefined) throw new Error(stop);
      await runtime.meter.beforeCall(hookInput.sessionID);
    },
    "shell.env": (hookInput, output) => runtime.guard.shellEnv(hookInput, output),
    // A call the guard let through is timed (shell) and its written paths recorded (file tools), for the parallel tasks' evidence.
    "tool.execute.before": async (hookInput, output) => {
      await runtime.guard.beforeTool(hookInput, output);
      runtime.sessions.writes?.toolStarted(hookInput);
    },
    "tool.execute.after": async (hookInput, output) => {
      await runtime.guard.afterTool(hookInput, output);
      runtime.sessions.writes?.toolFinished(hookInput);
      shown?.toolFinished(hookInput, output);
    },
    ...(shown
      ? {
          "command.execute.before": async (hookInput: { command: string; sessionID: string }) => shown.commandStarted(hookInput),
          "experimental.text.complete": async (hookInput: { sessionID: string }, output: { text: string }) =>
            shown.textComplete(hookInput, output),
        }
      : {}),
    // The TUI's command output back to the model's own answer; an otto session's first message as
    // two, so a prompt cache reads past OpenCode's environment block (src/session/stable-system.ts).
    "experimental.chat.messages.transform": async (_hookInput, output) => {
      try {
        shown?.messagesTransform(output);
        runtime.sessions.stable?.messages(output.messages);
      } catch (error) {
        report("messages transform")(error);
      }
    },
    // Otto's sessions only: the stable head of otto's prompt becomes a system part OpenCode marks for
    // caching (src/session/stable-system.ts). Any other request is left byte for byte as it was.
    "experimental.chat.system.transform": async (hookInput, output) => {
      try {
        runtime.sessions.stable?.transform(hookInput.sessionID, output.system);
      } catch (error) {
        report("system transform")(error);
      }
    },
    // Keeps otto's state (crew, unread messages, specs in progress) in the orchestrator's summary.
    "experimental.session.compacting": async (hookInput, output) => (await loadCrew()).compacting(hookInput, output),
  };
};

/**
 * The module's only export: `{ id, server }`, the form OpenCode 1.18.29+ loads (it calls `server`,
 * the plugin function). A named function export would be loaded as a second plugin; OpenCode 2's
 * `setup` can stand beside `server` here (docs/decisions.md).
 */
export default { id: "opencode-otto", server: OttoPlugin } satisfies PluginModule;
