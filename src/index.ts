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
} from './diagnostics/diagnostic.js';
export { maskSecrets } from './diagnostics/mask-secrets.js';
export {
  CodexMmoError,
  IntegrityError,
  IoError,
  ProcessError,
  describeError,
  type CodexMmoErrorCode,
} from './errors.js';
export { REGISTRY_CODES, type RegistryCode } from './registry/diagnostic-codes.js';
export { PROFILE_DIAGNOSTIC_CODES, type CodeInfo } from './profile/diagnostic-codes.js';
export { PROBE_CODES, type ProbeCode, type ProbeCodeInfo } from './probe/diagnostic-codes.js';
export { VERSION } from './version.js';

// --- where codex-mmo keeps its files ---
export {
  configFiles,
  resolveDirectories,
  type Directories,
  type DirectoryOverrides,
  type Environment,
} from './paths/directories.js';

// --- the operator registry: load, validate, probe and pin ---
export {
  REGISTRY_SCHEMA_VERSION,
  type ApprovalMode,
  type Registry,
  type RegistryEntry,
  type ServerDefinition,
} from './registry/types.js';
export { loadRegistry } from './registry/load-registry.js';
export { loadCredentials, type LoadedCredentials } from './registry/credentials.js';
export { validateRegistry, type RegistryValidation } from './registry/validate-registry.js';
export { fragmentJsonSchema } from './registry/fragment-schema.js';
export { probeServer, type ProbeContext, type ProbeResult } from './probe/probe-server.js';
export { pinServer, type PinContext, type PinResult } from './probe/pin-server.js';

// --- profiles: open, resolve, check ---
export {
  PROFILE_SCHEMA_VERSION,
  type ProfileData,
  type ProfilePack,
  type ResolvedPlan,
} from './profile/types.js';
export { installPack, listPacks, openPack } from './profile/pack-store.js';
export { resolvePack } from './profile/resolve-pack.js';
export { resolvePlan } from './profile/resolve-plan.js';
export { planToJson, type ResolvedPlanJson } from './profile/plan-json.js';
export { doctorProfile, type DoctorReport } from './profile/doctor.js';

// --- compile a profile into a snapshot and render Codex homes from it ---
export {
  compileProfile,
  type CompileRequest,
  type CompileResult,
} from './compile/compile-profile.js';
export { renderAll, renderProcess } from './compile/render-process.js';
export { writeRenderedHome } from './compile/write-home.js';
export type { MeshLaunch, RenderOptions, RenderedHome } from './compile/types.js';
export { listSnapshots, readSnapshot } from './snapshot/snapshot-store.js';
export { planOfSnapshot } from './snapshot/plan-of-snapshot.js';
export type { Snapshot, StoredSnapshot } from './snapshot/types.js';

// --- sessions: start, observe, stop, smoke-test ---
export {
  startSession,
  type StartSessionRequest,
  type StartSessionResult,
} from './session/start-session.js';
export { stopSession, type StopResult } from './session/stop-session.js';
export { listSessionRecords, locateSession, readSessionRecord } from './session/session-store.js';
export type { SessionRecord, SessionStatus } from './session/session-record.js';
export { readEvents } from './events/read-events.js';
export { formatEvent } from './events/format-event.js';
export type { SessionEvent } from './events/session-event.js';
export { smokeProfile } from './session/smoke.js';
