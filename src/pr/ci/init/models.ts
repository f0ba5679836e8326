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
 * runs with; otto's unset roles fall back to it in CI as they do here. `used` is every model the
 * job may call, for the secrets it needs.
 */
export function planModels(models: ConfiguredModels, current: string | undefined): { setup: ModelSetup; used: string[] } {
  const model = models.primary ?? current;
  if (!model) {
    throw new OttoError(
      "ci_no_model",
      "otto does not know which model the CI job should use: models.primary is not set and this session's model is unknown.",
      "Set models.primary, e.g. /otto-config set models.primary anthropic/claude-sonnet-4-5, then run the command again.",
    );
  }
  const set: Record<string, string | string[]> = {};
  if (models.primary) set.primary = models.primary;
  if (models.secondary) set.secondary = models.secondary;
  if (models.reviewers?.length) set.reviewers = [...models.reviewers];
  if (models.fix) set.fix = models.fix;
  const used = [model, models.secondary, ...(models.reviewers ?? []), models.fix].filter(
    (m): m is string => typeof m === "string" && m.length > 0,
  );
  return { setup: { model, models: set }, used: [...new Set(used)] };
}
