/**
 * codex-mmo's library API: what a program needs to load and check the operator registry, resolve
 * and compile a profile, render and store its snapshot, and start, observe and stop a session,
 * with the Diagnostic and error types and the code catalogues. Re-exports only, each from its
 * area's index: importing this module runs nothing. Library functions never print, exit or read
 * `process.env` themselves.
 */

// --- diagnostics, errors and the version ---
export {
  formatDiagnostic,
  hasErrors,
  maskSecrets,
  sortDiagnostics,
  summarize,
  type Diagnostic,
  type Severity,
} from './foundation/diagnostics/index.js';
export {
  CodexMmoError,
  IntegrityError,
  IoError,
  ProcessError,
  describeError,
  type CodexMmoErrorCode,
} from './foundation/errors.js';
export { VERSION } from './foundation/version.js';

// --- where codex-mmo keeps its files ---
export {
  configFiles,
  resolveDirectories,
  type Directories,
  type DirectoryOverrides,
  type Environment,
} from './foundation/paths/index.js';

// --- the operator registry: load, validate, probe and pin ---
export {
  REGISTRY_CODES,
  REGISTRY_SCHEMA_VERSION,
  fragmentJsonSchema,
  loadCredentials,
  loadRegistry,
  validateRegistry,
  type ApprovalMode,
  type LoadedCredentials,
  type Registry,
  type RegistryCode,
  type RegistryEntry,
  type RegistryValidation,
  type ServerDefinition,
} from './config/registry/index.js';
export {
  PROBE_CODES,
  pinServer,
  probeServer,
  type PinContext,
  type PinResult,
  type ProbeCode,
  type ProbeCodeInfo,
  type ProbeContext,
  type ProbeResult,
} from './runtime/probe/index.js';

// --- profiles: open, resolve, check ---
export {
  PROFILE_DIAGNOSTIC_CODES,
  PROFILE_SCHEMA_VERSION,
  installPack,
  listPacks,
  openPack,
  planToJson,
  resolvePack,
  resolvePlan,
  type CodeInfo,
  type ProfileData,
  type ProfilePack,
  type ResolvedPlan,
  type ResolvedPlanJson,
} from './config/profile/index.js';
export { doctorProfile, type DoctorReport } from './features/profile/index.js';

// --- compile a profile into a snapshot and render Codex homes from it ---
export {
  compileProfile,
  renderAll,
  renderProcess,
  writeRenderedHome,
  type CompileRequest,
  type CompileResult,
  type MeshLaunch,
  type RenderOptions,
  type RenderedHome,
} from './config/compile/index.js';
export {
  listSnapshots,
  planOfSnapshot,
  readSnapshot,
  type Snapshot,
  type StoredSnapshot,
} from './config/snapshot/index.js';

// --- sessions: start, observe, stop, smoke-test ---
export {
  startSession,
  type StartSessionRequest,
  type StartSessionResult,
} from './features/session/index.js';
export { stopSession, type StopResult } from './features/session/upkeep/index.js';
export {
  listSessionRecords,
  locateSession,
  readSessionRecord,
  type SessionRecord,
  type SessionStatus,
} from './runtime/session/index.js';
export { formatEvent, readEvents, type SessionEvent } from './runtime/events/index.js';
export { smokeProfile } from './features/smoke/index.js';
