// The guard subsystem's public entry: what keeps a session otto runs from pushing, merging or
// calling a forge, whatever it types. Sessions are recognised by id and by agent; their shells get
// an environment in which no push reaches a remote and no forge token is set; their bash commands
// and file edits are checked before they run. Otto's own push (src/workspace) checks afterwards
// that no session changed the checkout's git configuration or hooks. See docs/security.md.
export { classifyCommand, PUSH_ADVICE, type ClassifyContext, type Verdict } from "./classify-command.ts";
export { isGitControlPath } from "./git-paths.ts";
