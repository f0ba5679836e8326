export { OttoError, isOttoError, formatError } from "./errors.ts";
export { PACKAGE_ROOT, xdgPaths, type Env } from "./paths.ts";
export { createLogger, silentLogger, type Logger, type LogLevel } from "./log.ts";
export { redact, redactDeep, maskSecret, REDACTED, MIN_SECRET_LENGTH } from "./redact.ts";
export { KnownSecrets, SECRET_ENV, envSecrets } from "./secrets.ts";
export { EventBus, type Listener } from "./events.ts";
export { assetPath, builtinDir, listAssetNames, readMarkdownAsset, type AssetFolder, type MarkdownAsset } from "./assets.ts";
export { holdLock, readTextIfExists, realTarget, withFileLock, writeFileAtomic, type LockRetries } from "./files.ts";
export { processAlive } from "./process.ts";
