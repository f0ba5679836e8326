export {
  Rule,
  RuleProposal,
  RuleSource,
  RuleSourceKind,
  RuleStatus,
  RuleText,
  RuleGlob,
  MAX_RULES,
  MAX_RULE_TEXT,
  MAX_SOURCES,
  RULE_ID,
} from "./schema.ts";
export { parseRules, renderRule, renderRules, preambleOf, type ParsedRules } from "./file.ts";
export {
  RULES_FILE,
  rulesPath,
  userRulesPath,
  readRules,
  readUserRules,
  proposeRules,
  proposeUserRules,
  mergeProposals,
  setStatus,
  setUserStatus,
  retireRule,
  sameTextKey,
  newRuleId,
} from "./store.ts";
export { ALL_FILES, rulesInScope, ruleMatches, globRegex, isWholeRepo } from "./scope.ts";
export {
  NO_RULES,
  applyRules,
  loadRuleSet,
  ruleSetFromText,
  rulesPrompt,
  type RuleSet,
  type RulesPrompt,
  type RulesPurpose,
} from "./apply.ts";
export { USER_KEY, appliedCounts, appliedPath, recordApplied } from "./applied.ts";
