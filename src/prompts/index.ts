export { PROMPT_NAMES, isPromptName, type PromptName } from "./names.ts";
export { PROMPT_CONTRACTS, type PromptValue, type PromptVars } from "./contracts.ts";
export { PromptMeta } from "./parse-prompt-file.ts";
export { loadPrompt, listPrompts, userPromptDir, type LoadedPrompt, type PromptOptions } from "./load-prompt.ts";
export { renderPrompt } from "./render-prompt.ts";
export { MARKERS } from "./markers.ts";
export { untrusted, type UntrustedOptions } from "./untrusted.ts";
export { parseTemplate, renderTemplate } from "./template-engine.ts";
export { stableHead, templateHead, MIN_STABLE_HEAD } from "./stable-head.ts";
