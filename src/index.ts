/**
 * codex-mmo's library entry point: explicit named exports of the pure core (parse → validate →
 * resolve → render) and the thin IO shell. The CLI uses the library only through this module.
 */

// --- diagnostics and errors ---
export {
  diagnostic,
  formatDiagnostic,
  hasErrors,
  sortDiagnostics,
  summarize,
  type Diagnostic,
  type DiagnosticInit,
  type Severity,
} from './diagnostics/diagnostic.js';
export {
  CodexMmoError,
  IntegrityError,
  IoError,
  ProcessError,
  describeError,
  type CodexMmoErrorCode,
} from './errors.js';
export { VERSION } from './version.js';

// --- paths ---
export {
  configFiles,
  expandTilde,
  resolveDirectories,
  type Directories,
  type DirectoryOverrides,
  type Environment,
} from './paths/directories.js';

// --- toml ---
export {
  parseTomlBytes,
  parseTomlText,
  decodeUtf8,
  type ParsedToml,
  type TomlTable,
} from './toml/parse-toml.js';
export {
  formatKeyPath,
  scanKeyPositions,
  KeyPositions,
  type KeyPath,
  type Position,
} from './toml/key-positions.js';

// --- registry ---
export {
  APPROVAL_MODES,
  REGISTRY_SCHEMA_VERSION,
  RESERVED_SERVER_ID,
  SERVER_ID_PATTERN,
  referencedEnvVars,
  type ApprovalMode,
  type CommonDefinition,
  type FragmentSource,
  type HttpDefinition,
  type Registry,
  type RegistryEntry,
  type ServerDefinition,
  type ServerStatus,
  type StdioDefinition,
  type ToolOverride,
  type Transport,
} from './registry/types.js';
export type {
  CredentialOrigin,
  CredentialSource,
  VariablePresence,
} from './registry/credentials-types.js';

// --- profile ---
export {
  CODEX_DEFAULT_STARTUP_TIMEOUT_SEC,
  LIFECYCLE_WAIT_FLOOR_SEC,
  LIFECYCLE_WAIT_MARGIN_SEC,
  MESH_PROTOCOL_OVERHEAD_SEC,
  PERMISSIONS,
  PROFILE_SCHEMA_VERSION,
  type GrantSpec,
  type Permissions,
  type ProfileData,
  type ProfilePack,
  type ResolvedGrant,
  type ResolvedPlan,
  type ResolvedProcess,
  type ResolvedRole,
  type RoleSpec,
} from './profile/types.js';

// --- compile ---

// --- snapshot ---

// --- codex ---

// --- session ---

// --- mesh ---

// --- probe ---
