import { tasksMd } from "./spec-model.ts";

/** Documents the scripted model "writes" for the spec e2e tests. */

export const REQUIREMENTS = `# Requirements: Rate limiting

## Summary
Clients can overload the API; limit requests per API key.

## User Stories
### US-1: Limit requests
As an operator, I want requests limited per key, so that one client cannot starve others.

Acceptance criteria:
- AC-1.1: Given a key over its limit, when it sends a request, then it gets 429.

## Open Questions
- **Limit per key**: What is the default limit per API key? Why it matters: sizing. Assumed until answered: 100/min.
- **Plans**: Which customer plans get higher limits? Why it matters: pricing.
`;

export const RESEARCH_DRAFT = `# Research: Rate limiting

## Summary
- The API is an express app (src/server.js).

## Open Questions
None.
`;

export const RESEARCH_FINAL = `${RESEARCH_DRAFT.trim()}

## Risks and Unknowns
- Counters in memory are lost on restart (added after review).
`;

export const DESIGN_V1 = `# Design: Rate limiting

## Overview
An express middleware with an in-memory token bucket per key.

## Open Questions
- **Header**: Which header carries the API key? Assumed for this design: X-Api-Key.
`;

export const DESIGN_V2 = `${DESIGN_V1.trim()}

## Error Handling
429 with Retry-After (refined).
`;

const A: [string, string, number, string[], string] = ["task-001", "pending", 1, [], "Create the token bucket store"];
const B: [string, string, number, string[], string] = ["task-002", "pending", 1, [], "Write the 429 response helper"];
const C: [string, string, number, string[], string] = ["task-003", "pending", 2, ["task-001", "task-002"], "Add the rate limit middleware"];

/** A cycle between task-001 and task-003. */
export const TASKS_CYCLE = tasksMd([["task-001", "pending", 1, ["task-003"], A[4]], B, ["task-003", "pending", 1, ["task-001"], C[4]]]);
/** task-002 twice. */
export const TASKS_DUPLICATE = tasksMd([A, B, ["task-002", "pending", 2, ["task-001"], C[4]]]);
export const TASKS_GOOD = tasksMd([A, B, C]);
/** On disk before the re-run: the first two are done. */
export const TASKS_DONE = tasksMd([["task-001", "completed", 1, [], A[4]], ["task-002", "completed", 1, [], B[4]], C]);
/** The model's re-run: drops task-001, rewrites completed task-002 as pending, adds task-004. */
export const TASKS_REGENERATED = tasksMd([
  ["task-002", "pending", 1, [], "Write a better 429 helper"],
  C,
  ["task-004", "pending", 3, ["task-003"], "Document the limits"],
]);
