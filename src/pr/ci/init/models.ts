import { OttoError } from "../../../core/index.ts";
import type { ModelSetup } from "./setup.ts";

/** otto's configured model roles, as `provider/model` names (unset roles absent). */
export interface ConfiguredModels {
  primary?: string | undefined;
  secondary?: string | undefined;
  reviewers?: string[] | undefined;
  fix?: string | undefined;
}

/**
 * Pure: the CI job's models. OpenCode's `model` is models.primary, else the model this command
 * runs with; either is written as the job's models.primary (a CI job has no session whose model
 * otto could fall back to), and the other unset roles fall back to it as they do here. `used` is
 * every model the job may call, for the secrets it needs.
 */
export function planModels(models: ConfiguredModels, current: string | undefined): { setup: ModelSetup; used: string[] } {
  const model = models.primary ?? current;
  if (!model) {
    throw new OttoError(
      "ci_no_model",
      "otto does not know which model the CI job should use: models.primary is not set and this session's model is unknown.",
      "Set models.primary to a hosted model with an API key, e.g. /otto-config set models.primary anthropic/claude-sonnet-4-5, then run /otto-pr ci init again.",
    );
  }
  const set: Record<string, string | string[]> = { primary: model };
  if (models.secondary) set.secondary = models.secondary;
  if (models.reviewers?.length) set.reviewers = [...models.reviewers];
  if (models.fix) set.fix = models.fix;
  const used = [model, models.secondary, ...(models.reviewers ?? []), models.fix].filter(
    (m): m is string => typeof m === "string" && m.length > 0,
  );
  return { setup: { model, models: set }, used: [...new Set(used)] };
}

/** True for a URL on this machine (a local model server a CI runner cannot reach). */
export function isLocalUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
    return host === "localhost" || host.endsWith(".localhost") || host === "::1" || host === "0.0.0.0" || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * Pure: refuses models whose provider runs on this machine (`local`: provider id → its base URL):
 * a runner cannot reach them, and no secret name would help.
 */
export function assertReachable(used: readonly string[], local: ReadonlyMap<string, string>): void {
  const unreachable = used.filter((m) => local.has(m.split("/")[0] ?? ""));
  if (unreachable.length === 0) return;
  const where = [...new Set(unreachable.map((m) => m.split("/")[0] ?? ""))]
    .map((p) => `${p} (${local.get(p) ?? "this machine"})`)
    .join(", ");
  throw new OttoError(
    "ci_local_model",
    `The CI job would use ${unreachable.join(", ")}, served on this machine by ${where}: a CI runner cannot reach it, and it has no API key to store as a secret.`,
    "Set the roles the job uses to hosted models with an API key, e.g. /otto-config set models.primary anthropic/claude-sonnet-4-5 (and models.secondary, models.reviewers, models.fix if set), then run /otto-pr ci init again.",
  );
}
