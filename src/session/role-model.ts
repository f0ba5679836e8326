import { OttoError, type Logger } from "../core/index.ts";
import { formatModel, parseModel, type ModelRef } from "./model.ts";
import type { SessionClient } from "./types.ts";

export interface RoleModelDeps {
  client: SessionClient;
  /** The invoking session (the tool's `ctx.sessionID`). */
  sessionID: string;
  directory?: string;
  /** `runtime.once`: notes said once per process. */
  once: Set<string>;
  log: Logger;
}

export interface RoleModel {
  model: ModelRef;
  /** Set the first time per process a role falls back to the session's model; show it to the user. */
  note?: string;
}

/** The model of the invoking session: the newest message that records one. */
export async function readSessionModel(deps: Omit<RoleModelDeps, "once" | "log">): Promise<ModelRef | undefined> {
  const result = await deps.client.session.messages({ path: { id: deps.sessionID }, query: { directory: deps.directory } });
  for (const { info } of [...(result.data ?? [])].reverse()) {
    if (info.role === "assistant") return { providerID: info.providerID, modelID: info.modelID };
    if (info.role === "user") return { providerID: info.model.providerID, modelID: info.model.modelID };
  }
  return undefined;
}

/**
 * The model for a role (`primary`, `secondary`, …): the configured `provider/model`, or, when the
 * role is unset, the model of the session that runs the command.
 */
export async function resolveRoleModel(role: string, configured: string | undefined, deps: RoleModelDeps): Promise<RoleModel> {
  if (configured) return { model: parseModel(configured) };
  const model = await readSessionModel(deps);
  if (!model) {
    throw new OttoError(
      "model_unset",
      `models.${role} is not set and the model of session ${deps.sessionID} could not be read.`,
      `Set models.${role} in otto.jsonc, e.g. /otto-config set models.${role} anthropic/claude-sonnet-4-5`,
    );
  }
  const key = `model-fallback:${role}`;
  if (deps.once.has(key)) return { model };
  deps.once.add(key);
  const note = `models.${role} is not set; using ${formatModel(model)} (the session's model)`;
  deps.log.log("info", note);
  return { model, note };
}

/** Said when a review (secondary) falls on the model that wrote the work: no second opinion, and the user should know. */
export function sameModelNote(writer: ModelRef, reviewer: ModelRef): string | undefined {
  if (formatModel(writer) !== formatModel(reviewer)) return undefined;
  return `the review is by the same model that wrote the work (${formatModel(writer)}), so it is no second opinion; set models.secondary to another model for one`;
}
