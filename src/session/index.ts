/**
 * src/session: the one module every feature uses to talk to models (see docs/sessions.md).
 */
export { parseModel, formatModel, sameModel, type ModelRef } from "./model.ts";
export { SessionRunner, createSessionRunner, type RunnerOptions, type RunOptions, type RunReply } from "./runner.ts";
export { ChildSession, replyText, type ChildOptions, type PromptReply } from "./child.ts";
export { describeSchema, type JsonOptions, type JsonReply } from "./json.ts";
export {
  extractEnvelope,
  extractDocument,
  parseEnvelope,
  rescueJson,
  jsonCandidates,
  stripFence,
  type EnvelopeResult,
} from "./envelope.ts";
export { renderDialog, type DialogOptions } from "./dialog.ts";
export { resolveRoleModel, readSessionModel, sameModelNote, type RoleModel, type RoleModelDeps } from "./role-model.ts";
export {
  systemClock,
  type Clock,
  type EventSource,
  type PromptBody,
  type PromptRenderer,
  type SessionClient,
  type SessionDeps,
  type SessionMessage,
  type TurnReply,
} from "./types.ts";
export { checkModels, type ModelCheck, type RoleToCheck } from "./check-models.ts";
export { taskFailedReason } from "./task-failed.ts";
export { StableSystems, splitSystem } from "./stable-system.ts";
export { SessionWrites, writtenPaths, type SessionActivity, type TimeWindow, type ToolCall } from "./writes.ts";
