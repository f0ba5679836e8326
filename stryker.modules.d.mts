// Types of stryker.modules.mjs, for vitest.mutate.config.ts.
export declare const SAFETY_MODULES: Record<string, string[]>;
