/**
 * codex-mmo's library API: what a program needs to load and check the operator registry, resolve
 * and compile a profile, render and store its snapshot, and start, observe and stop a session,
 * with the Diagnostic and error types and the code catalogues. Re-exports only: importing this
 * module runs nothing. Library functions never print, exit or read `process.env` themselves.
 */

// --- diagnostics, errors, codes and the version ---
export {
  formatDiagnostic,
  hasErrors,
  sortDiagnostics,
  summarize,
  type Diagnostic,
  type Severity,
} from './foundation/diagnostics/diagnostic.js';
export { maskSecrets } from './foundation/diagnostics/mask-secrets.js';
export {
  CodexMmoError,
  IntegrityError,
  IoError,
  ProcessError,
  describeError,
  type CodexMmoErrorCode,
} from './foundation/errors.js';
export { REGISTRY_CODES, type RegistryCode } from './config/registry/diagnostic-codes.js';
export { PROFILE_DIAGNOSTIC_CODES, type CodeInfo } from './config/profile/diagnostic-codes.js';
export {
  PROBE_CODES,
  type ProbeCode,
  type ProbeCodeInfo,
} from './runtime/probe/diagnostic-codes.js';
export { VERSION } from './foundation/version.js';

// --- where codex-mmo keeps its files ---
export {
  configFiles,
  resolveDirectories,
  type Directories,
  type DirectoryOverrides,
  type Environment,
} from './foundation/paths/directories.js';

// --- the operator registry: load, validate, probe and pin ---
export {
  REGISTRY_SCHEMA_VERSION,
  type ApprovalMode,
  type Registry,
  type RegistryEntry,
  type ServerDefinition,
} from './config/registry/types.js';
export { loadRegistry } from './config/registry/load-registry.js';
export { loadCredentials, type LoadedCredentials } from './config/registry/credentials.js';
export { validateRegistry, type RegistryValidation } from './config/registry/validate-registry.js';
export { fragmentJsonSchema } from './config/registry/fragment-schema.js';
export { probeServer, type ProbeContext, type ProbeResult } from './runtime/probe/probe-server.js';
export { pinServer, type PinContext, type PinResult } from './runtime/probe/pin-server.js';

// --- profiles: open, resolve, check ---
export {
  PROFILE_SCHEMA_VERSION,
  type ProfileData,
  type ProfilePack,
  type ResolvedPlan,
} from './config/profile/types.js';
export { installPack, listPacks, openPack } from './config/profile/pack-store.js';
export { resolvePack } from './config/profile/resolve-pack.js';
export { resolvePlan } from './config/profile/resolve-plan.js';
export { planToJson, type ResolvedPlanJson } from './config/profile/plan-json.js';
export { doctorProfile, type DoctorReport } from './features/profile/doctor.js';

// --- compile a profile into a snapshot and render Codex homes from it ---
export {
  compileProfile,
  type CompileRequest,
  type CompileResult,
} from './config/compile/compile-profile.js';
export { renderAll, renderProcess } from './config/compile/render-process.js';
export { writeRenderedHome } from './config/compile/write-home.js';
export type { MeshLaunch, RenderOptions, RenderedHome } from './config/compile/types.js';
export { listSnapshots, readSnapshot } from './config/snapshot/snapshot-store.js';
export { planOfSnapshot } from './config/snapshot/plan-of-snapshot.js';
export type { Snapshot, StoredSnapshot } from './config/snapshot/types.js';

// --- sessions: start, observe, stop, smoke-test ---
export {
  startSession,
  type StartSessionRequest,
  type StartSessionResult,
} from './features/session/start-session.js';
export { stopSession, type StopResult } from './features/session/stop-session.js';
export {
  listSessionRecords,
  locateSession,
  readSessionRecord,
} from './runtime/session/session-store.js';
export type { SessionRecord, SessionStatus } from './runtime/session/session-record.js';
export { readEvents } from './runtime/events/read-events.js';
export { formatEvent } from './runtime/events/format-event.js';
export type { SessionEvent } from './runtime/events/session-event.js';
export { smokeProfile } from './features/smoke/smoke.js';
