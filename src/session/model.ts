import { OttoError } from "../core/index.ts";

/** A model as OpenCode addresses it: `providerID` + `modelID` (the config's `provider/model`). */
export interface ModelRef {
  providerID: string;
  modelID: string;
}

/**
 * Parses OpenCode's `provider/model` form. Model ids may contain more slashes
 * (`openrouter/anthropic/claude-sonnet-4`), so the split is at the first `/` only.
 */
export function parseModel(text: string): ModelRef {
  const value = text.trim();
  const slash = value.indexOf("/");
  const providerID = slash > 0 ? value.slice(0, slash) : "";
  const modelID = slash > 0 ? value.slice(slash + 1) : "";
  if (!providerID || !modelID || /\s/.test(value)) {
    throw new OttoError(
      "model_format",
      `Invalid model '${text}': expected provider/model, e.g. anthropic/claude-sonnet-4-5.`,
      "Run `opencode models` to list the models OpenCode knows, and use one of those names.",
    );
  }
  return { providerID, modelID };
}

export function formatModel(model: ModelRef): string {
  return `${model.providerID}/${model.modelID}`;
}

export function sameModel(a: ModelRef, b: ModelRef): boolean {
  return a.providerID === b.providerID && a.modelID === b.modelID;
}
