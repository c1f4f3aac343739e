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
export { didYouMean, editDistance, suggest } from './diagnostics/did-you-mean.js';
export {
  CodexMmoError,
  IntegrityError,
  IoError,
  ProcessError,
  describeError,
  type CodexMmoErrorCode,
} from './errors.js';
export { VERSION } from './version.js';

export {
  MASK,
  MaskingStream,
  SHORT_SECRET_LENGTH,
  maskDeep,
  maskSecrets,
  safeCut,
} from './diagnostics/mask-secrets.js';
export { isAlive, signalGroup, terminateGroup } from './process/process-control.js';

// --- paths ---
export {
  LOCK_FILE_NAME,
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
  firstInvalidUtf8,
  type ParsedToml,
  type TomlTable,
} from './toml/parse-toml.js';
export {
  formatKeyPath,
  keyLocation,
  scanKeyPositions,
  KeyPositions,
  type KeyLocation,
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
export {
  MAX_FRAGMENT_BYTES,
  compareBytewise,
  isFragmentName,
  loadRegistry,
  loadRegistrySync,
  readFragmentFiles,
  readFragmentFilesSync,
  type FragmentFiles,
} from './registry/load-registry.js';
export {
  MAX_CONFIG_FILE_BYTES,
  readConfigFile,
  readConfigFileSync,
  type ReadConfigFileResult,
} from './registry/read-config-file.js';
export {
  CREDENTIALS_FORBIDDEN_MODE_BITS,
  credentialSourceFrom,
  loadCredentials,
  type LoadedCredentials,
} from './registry/credentials.js';
export {
  checkReadiness,
  locateCommand,
  resolveCommand,
  variableReferences,
  type CommandLocation,
  type Readiness,
  type ReadinessContext,
} from './registry/readiness.js';
export {
  diagnosticsAffecting,
  lookupServer,
  unknownServerDiagnostic,
  validateRegistry,
  type RegistryValidation,
  type ServerLookup,
} from './registry/validate-registry.js';
export { entryLocation, type EntryLocation } from './registry/entry-location.js';
export { buildRegistry, compareFragmentFiles } from './registry/build-registry.js';
export {
  validateFragment,
  type FragmentResult,
  type FragmentServer,
} from './registry/validate-fragment.js';
export {
  isCredentialName,
  isCredentialQueryName,
  isCredentialValue,
} from './registry/credential-patterns.js';
export {
  ENV_VAR_NAME_PATTERN,
  FIELDS,
  HEADER_NAME_PATTERN,
  REJECTED_FIELDS,
  TRANSPORTS,
  type FieldKind,
  type FieldSpec,
  type RejectedField,
} from './registry/field-catalogue.js';
export {
  REGISTRY_CODES,
  registryDiagnostic,
  type CodeStage,
  type RegistryCode,
} from './registry/diagnostic-codes.js';
export { fragmentJsonSchema } from './registry/fragment-schema.js';
export { checkUrl, isLoopbackHost, type UrlFinding } from './registry/url-rules.js';

// --- profile ---
export {
  CODEX_DEFAULT_STARTUP_TIMEOUT_SEC,
  LIFECYCLE_WAIT_FLOOR_SEC,
  LIFECYCLE_WAIT_MARGIN_SEC,
  MAX_PROCESS_MEMBERSHIPS,
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
export {
  CODEX_AGENTS_SETTINGS,
  GRANT_KEYS,
  PACK_FILE,
  PACK_NAME_PATTERN,
  ROLE_KEYS,
  ROLE_NAME_PATTERN,
  SERVER_DEFINITION_KEYS,
} from './profile/pack-fields.js';
export {
  validatePackToml,
  type InstructionFileRef,
  type PackValidation,
} from './profile/validate-pack.js';
export { loadPack, MAX_PACK_FILE_BYTES, type LoadedPack } from './profile/load-pack.js';
export {
  checkGrants,
  effectiveGrant,
  grantedServers,
  lifecycleWaitSec,
  meshToolTimeoutSec,
  nativeClosure,
  processesOf,
  resolvePlan,
  type PlanSource,
  type ResolveOptions,
} from './profile/resolve-plan.js';
export {
  withGrantProblems,
  registryDiagnosticsFor,
  registryInputs,
  resolveAgainst,
  resolvePack,
  type RegistryDiagnosticOptions,
} from './profile/resolve-pack.js';
export { planToJson, profileToJson, type ResolvedPlanJson } from './profile/plan-json.js';
export {
  nativeIsolationDiagnostics,
  nativeRoleDeltas,
  type MeshDelta,
  type MeshGrants,
  type NativeRoleDelta,
  type ServerTools,
} from './profile/native-isolation.js';
export { securityNotes, serverNameCollisions } from './profile/security-notes.js';
export { PROFILE_DIAGNOSTIC_CODES, type CodeInfo } from './profile/diagnostic-codes.js';
export {
  INSTALLED_DIR_MODE,
  INSTALLED_FILE_MODE,
  installPack,
  installedNames,
  listPacks,
  locatePack,
  openPack,
  packNotFound,
  profilesDir,
  removeTree,
  type InstallResult,
  type InstalledPack,
} from './profile/pack-store.js';
export {
  doctorProfile,
  MEASURED_CODEX_VERSION,
  type DoctorInput,
  type DoctorReport,
  type DoctorServer,
} from './profile/doctor.js';

// --- compile ---
export {
  MESH_SESSION_PLACEHOLDER,
  MESH_STARTUP_TIMEOUT_SEC,
  SANDBOX_MODES,
  meshPlaceholder,
  renderAll,
  renderProcess,
  renderProcessTables,
  serverTable,
} from './compile/render-process.js';
export { writeRenderedHome } from './compile/write-home.js';
export { COMPILER_OWNED_KEYS, loadCodexBase, validateCodexBase } from './compile/codex-base.js';
export {
  compileProfile,
  type CompileRequest,
  type CompileResult,
} from './compile/compile-profile.js';
export type { MeshLaunch, RenderOptions, RenderedHome } from './compile/types.js';

// --- snapshot ---
export { canonicalJson, sha256Hex } from './snapshot/canonical-json.js';
export {
  buildSnapshot,
  grantedServerIds,
  normaliseProfile,
  snapshotId,
  snapshotText,
} from './snapshot/build-snapshot.js';
export {
  SNAPSHOT_FILE,
  listSnapshots,
  readSnapshot,
  snapshotsDir,
  storeSnapshot,
  type SnapshotSummary,
} from './snapshot/snapshot-store.js';
export { planOfSnapshot } from './snapshot/plan-of-snapshot.js';
export {
  SNAPSHOT_FORMAT,
  type Snapshot,
  type StoredSnapshot,
  type ToolPin,
} from './snapshot/types.js';

// --- codex ---
export {
  detectCodex,
  findCodex,
  locateCodex,
  parseCodexVersion,
  CODEX_VERSION_TIMEOUT_MS,
  type CodexDetection,
} from './codex/find-codex.js';
export {
  CODEX_CLI_TIMEOUT_MS,
  codexMcpGet,
  codexMcpList,
  runCodex,
  strictConfigCheck,
  stripAnsi,
  type CodexCliOptions,
  type CodexRun,
  type StrictConfigResult,
} from './codex/codex-cli.js';
export {
  SCRIPTED_MODEL_NAME,
  SCRIPTED_PROVIDER_ID,
  describeRequest,
  offeredToolsOf,
  parseRoleList,
  responseEvents,
  scriptedProviderConfig,
  startScriptedModel,
  type ModelRequest,
  type OfferedTools,
  type ScriptHandler,
  type ScriptedItem,
  type ScriptedModel,
} from './codex/scripted-model.js';
export {
  AppServerClient,
  AppServerRequestError,
  approvalResult,
  failedRequiredServers,
  type AppServerOptions,
  type ApprovalDecision,
  type ApprovalPolicy,
  type ExitInfo,
  type TurnResult,
} from './codex/app-server-client.js';
export type {
  ClientInfo,
  InitializeResponse,
  McpServerStartupState,
  McpServerStartupStatus,
  McpServerStatus,
  ServerNotification,
  ServerRequest,
  ThreadItem,
  ThreadStartParams,
  ThreadStartResponse,
  TurnInfo,
  TurnStartParams,
} from './codex/app-server-protocol.js';

// --- session ---
export {
  BASE_ENV_NAMES,
  BASE_ENV_PREFIXES,
  CODEX_AUTH_ENV_NAMES,
  buildChildEnv,
  type ChildEnv,
  type ChildEnvOptions,
} from './session/child-env.js';
export {
  baseProviderEnvNames,
  findProcess,
  processEnvironment,
  type ProcessEnvironment,
} from './session/process-env.js';
export {
  SKIP_GIT_CHECK,
  codexArgv,
  prepareSession,
  processHomeDir,
  type PrepareSessionInput,
  type SessionMode,
  type SessionPlan,
} from './session/prepare-session.js';
export {
  chooseSocketPath,
  launchSession,
  type LaunchContext,
  type RunningSession,
  type SessionOutcome,
} from './session/launch.js';
export {
  startSession,
  type StartSessionRequest,
  type StartSessionResult,
} from './session/start-session.js';
export { stopSession, type StopResult } from './session/stop-session.js';
export {
  SESSION_FORMAT,
  effectiveRecord,
  isActiveStatus,
  type ProcessStatus,
  type SessionProcess,
  type SessionRecord,
  type SessionStatus,
} from './session/session-record.js';
export {
  createSessionDir,
  listSessionRecords,
  locateSession,
  readSessionRecord,
  sessionDir,
  sessionPaths,
  sessionsDir,
  writeSessionRecord,
  type SessionPaths,
} from './session/session-store.js';
export { isSessionId, newSessionId, SESSION_ID_PATTERN } from './session/session-id.js';
export { WATCHDOG_GRACE_SEC, startWatchdog, type Watchdog } from './session/watchdog.js';
export { copyAuth, writeProcessHome } from './session/codex-home.js';
export {
  SMOKE_SPAWN_MARKER,
  grantedTools,
  meshAssignments,
  smokeHome,
  smokeProfile,
  toolDifference,
  type SmokeMeasurement,
  type SmokeMesh,
  type SmokeMissingEnv,
  type SmokeReport,
  type SmokeRequest,
  type SmokeRole,
  type SmokeRoleKind,
  type SmokeServerFailure,
  type SmokeVia,
  type ToolsByServer,
} from './session/smoke.js';

// --- mesh ---
export { authorize, visibleRoles, type Authorization, type MeshAction } from './mesh/authorize.js';
export {
  MeshError,
  type MeshBackend,
  type MeshCaller,
  type MeshErrorCode,
  type ParticipantInfo,
  type ParticipantStatus,
  type SendResult,
  type SpawnArgs,
  type WaitResult,
} from './mesh/mesh-protocol.js';
export {
  MESH_SERVER_NAME,
  MESH_TOOL_NAMES,
  createMeshServer,
  type MeshServerInfo,
} from './mesh/mesh-server.js';
export { NO_CREDENTIAL_MESSAGE, SessionBroker, type BrokerOptions } from './mesh/session-broker.js';
export { BrokerClient, type HelloResult } from './mesh/broker-client.js';
export { Participant, type ParticipantSpec } from './mesh/participant.js';
export {
  failingBackend,
  serveMesh,
  unavailableBackend,
  type ServeMeshOptions,
} from './mesh/serve-mesh.js';
export {
  MESH_TOKEN_ENV,
  MeshCredentials,
  newMeshToken,
  type MeshIdentity,
} from './mesh/mesh-credential.js';
export {
  checkMeshCommand,
  cliEntryPath,
  defaultCliLaunch,
  meshLaunchFor,
} from './mesh/mesh-command.js';

// --- probe ---
export {
  LOCK_VERSION,
  parseLock,
  pinsOf,
  renderLock,
  withServerPin,
  type ParsedLock,
  type PinnedTool,
  type ServerPin,
  type ToolLock,
} from './probe/lock-format.js';
export { readLock, readLockFile, writeLock, type LockFileContents } from './probe/lock-file.js';
export { surfaceDigests, type SurfaceDigests, type ToolSurface } from './probe/tool-surface.js';
export {
  approvalRisk,
  codexAsksApproval,
  mayWrite,
  type ToolHints,
} from './probe/approval-risk.js';
export {
  CODEX_DEFAULT_ENV_NAMES,
  DEFAULT_STARTUP_TIMEOUT_SEC,
  planLaunch,
  type Launch,
  type LaunchContext as ProbeLaunchContext,
  type LaunchPlan,
} from './probe/launch-plan.js';
export {
  listToolsLive,
  type LiveOutcome,
  type LiveSurface,
  type LiveTarget,
  type ServerInfo,
} from './probe/list-tools-live.js';
export { compareWithPin, type PartChange, type ToolDrift } from './probe/tool-drift.js';
export {
  analyzeSurface,
  type PinStatus,
  type ProbedTool,
  type SurfaceAnalysis,
} from './probe/analyze-surface.js';
export { probeServer, type ProbeContext, type ProbeResult } from './probe/probe-server.js';
export { pinServer, type PinContext, type PinResult } from './probe/pin-server.js';
export { probeJson, probeText } from './probe/probe-report.js';
export { PROBE_CODES, type ProbeCode, type ProbeCodeInfo } from './probe/diagnostic-codes.js';
export {
  DEFAULT_APPROVAL_TIMEOUT_SEC,
  type AnswerChannel,
  type ApprovalAnswer,
  type ApprovalAsk,
  type ApprovalDecision as QueueDecision,
  type ApprovalKind,
  type PendingApproval,
} from './approvals/approval-types.js';
export {
  ApprovalQueue,
  SUPERVISOR_USER,
  type AnswerResult,
  type ApprovalQueueOptions,
  type QueueListener,
} from './approvals/approval-queue.js';
export {
  ApprovalSocket,
  approvalSocketPath,
  type ApprovalSocketOptions,
  type Refusal,
  type SocketReply,
  type SocketRequest,
} from './approvals/approval-socket.js';
export { askSupervisor } from './approvals/approval-client.js';
export {
  APPROVAL_KEY_FILE,
  approvalKeyPath,
  readApprovalKey,
  writeApprovalKey,
} from './approvals/approval-auth.js';
export { describeApprovalRequest, MAX_ARGUMENT_CHARS } from './approvals/describe-request.js';
export { queuePolicy, type PolicyScope } from './approvals/approval-policy.js';
export { SessionSupervision, type SupervisionOptions } from './approvals/session-supervision.js';
export {
  answerSessionApproval,
  listSessionApprovals,
  type AnswerOutcome,
  type SessionApprovals,
} from './approvals/session-approvals.js';
export {
  MAX_EVENT_TEXT,
  type EventInput,
  type SessionEvent,
  type SessionEventType,
} from './events/session-event.js';
export { EVENTS_FILE, EventLog, eventsFile } from './events/event-log.js';
export { eventsOfNotification } from './events/notification-events.js';
export { eventsOfRolloutLine, rootRolloutEvents } from './events/rollout-events.js';
export { readEvents } from './events/read-events.js';
export { describeEvent, formatEvent } from './events/format-event.js';
export {
  startExecRoot,
  type ExecOutcome,
  type ExecRoot,
  type ExecRootOptions,
} from './session/exec-app-server.js';
export {
  parseExecCodexArgs,
  type ExecArgumentsResult,
  type ExecOverrides,
} from './session/exec-arguments.js';
export {
  CODEX_VERSIONS,
  NEWEST_CODEX,
  acceptsMcpServerKey,
  acceptsTopLevelKey,
  approvalModeAsks,
  classifyCodexVersion,
  codexFacts,
  offeredNameCollisions,
  offeredServerName,
  supportedSeriesText,
  versionGatedMcpServerKeys,
  versionGatedTopLevelKeys,
  type ApprovalHints,
  type AutoApprovalRule,
  type CodexVersionClass,
  type CodexVersionFacts,
  type InstructionsPlacement,
  type ResponsesRequestShape,
  type ServerNameRule,
  type ToolOutputShape,
} from './codex/codex-versions.js';
export {
  CODEX_INSTALL_COMMAND,
  codexInUse,
  codexVersionDiagnostics,
  untestedVersionDiagnostic,
  type CodexInUse,
} from './codex/codex-in-use.js';

// Onboarding: `tool-mcp add` from a live server
export {
  ADDED_APPROVAL_MODE,
  addServer,
  addedFragmentFile,
  credentialArguments,
  type AddContext,
  type AddRequest,
  type AddResult,
} from './onboard/add-server.js';
export {
  commentText,
  renderFragment,
  type FragmentSpec,
  type FragmentTarget,
  type FragmentTool,
} from './onboard/fragment-text.js';
export { writeNewFragment, type WriteFragmentResult } from './registry/write-fragment.js';
export {
  DEFAULT_SCRIPT,
  itemsOfStep,
  parseModelScript,
  scriptHandler,
  sectionFor,
  stepsTaken,
  type ModelScript,
  type ScriptSection,
  type ScriptStep,
} from './onboard/model-script.js';

// The model wire: a per-session Responses proxy that narrows each thread to its role's grants
export {
  ModelWire,
  type ModelWireOptions,
  type ThreadRole,
  type WireRecord,
} from './model-wire/model-wire.js';
export { MODEL_WIRE_LOG, startSessionWire } from './model-wire/session-wire.js';
export {
  CHATGPT_BACKEND_BASE,
  OPENAI_API_BASE,
  WIRE_OPENAI_PROVIDER,
  pointAtWire,
  providerRoute,
  upstreamOf,
  type ProviderRoute,
} from './model-wire/provider-route.js';
export { filterTools, type FilteredTools } from './model-wire/filter-tools.js';
export {
  ThreadRoles,
  attribute,
  type Attribution,
  type ThreadEntry,
} from './model-wire/thread-roles.js';
export {
  modelSafeName,
  wireProcess,
  wireRole,
  type WireProcess,
  type WireRole,
} from './model-wire/role-grants.js';
export { developerTexts, wireIdentity, type WireIdentity } from './model-wire/wire-request.js';
export { wireEnforcement } from './model-wire/enforcement.js';
export { dropRoleBlocks, narrowAgentTypes } from './model-wire/agent-types.js';
export { describeMeshFor } from './model-wire/mesh-offer.js';
export { meshToolDescriptions } from './mesh/mesh-server.js';
export type { MeshCallContext } from './mesh/mesh-protocol.js';
export { nativeDepth } from './compile/native-depth.js';
export type { NativeEnforcement } from './profile/native-isolation.js';
export { baseKeyDiagnostics, unacceptedKeys, withAcceptedKeys } from './codex/version-keys.js';
export {
  GENERATED_BEGIN,
  GENERATED_END,
  codexVersionsMarkdown,
} from './codex/codex-versions-doc.js';

// Tool MCP gateway
export {
  GatewayHub,
  NO_TOKEN_MESSAGE,
  type DriftReport,
  type GatewayHubOptions,
} from './gateway/gateway-hub.js';
export {
  SessionGateway,
  driftDiagnostic,
  gatewaySocketPath,
  toolCredentialNames,
  type ProcessLaunch,
  type ProcessLaunchInput,
  type SessionGatewayOptions,
} from './gateway/session-gateway.js';
export {
  RelayConnection,
  refusal,
  type RelayShared,
  type Route,
} from './gateway/relay-connection.js';
export { runRelay, type RelayOptions } from './gateway/relay-client.js';
export { relayHome, relayLaunch, relayTokenNames, type RelayTarget } from './gateway/relay-home.js';
export { RelayTokens, type Redemption, type RouteKey } from './gateway/gateway-credentials.js';
export {
  credentialMatcher,
  findCredentialIn,
  type CredentialEncoding,
  type CredentialMatcher,
} from './gateway/credential-scan.js';
export {
  filterToolList,
  liveDigest,
  type DriftedTool,
  type ToolGate,
} from './gateway/tool-filter.js';
export {
  callerThread,
  summarizeArguments,
  type CallOutcome,
  type CallReason,
  type CallRecord,
} from './gateway/call-record.js';
export { CALLS_FILE, CallLog, callsFile, readCalls } from './gateway/call-log.js';
export { startUpstream, type Upstream } from './gateway/upstream.js';
export { GATEWAY_TOKEN_ENV_PREFIX, tokenEnvName } from './gateway/gateway-protocol.js';
export {
  keepReason,
  pruneSessions,
  type KeptReason,
  type PruneSessionsOptions,
  type PruneSessionsResult,
  type PrunedSession,
} from './session/prune-sessions.js';
export {
  pruneSnapshots,
  SNAPSHOT_PRUNE_GRACE_MS,
  type PruneSnapshotsOptions,
  type PruneSnapshotsResult,
} from './snapshot/prune-snapshots.js';
export {
  baseCodexHome,
  modelAccess,
  modelAccessDiagnostics,
  modelSideCheck,
  strictConfigDiagnostics,
  type ModelAccess,
  type ModelSideInput,
} from './profile/doctor-model.js';
export {
  DEFAULT_MAX_PARTICIPANTS,
  resolveMaxParticipants,
  type MaxParticipants,
} from './mesh/participant-cap.js';
export {
  codeFingerprint,
  fragmentCacheFile,
  fragmentCacheName,
  readCachedFragment,
  writeCachedFragment,
  type FragmentCache,
} from './registry/fragment-cache.js';
export { loadRegistryCached } from './registry/load-registry-cached.js';
export { mergeFragmentResults } from './registry/merge-fragments.js';
export { isOfferedNamespace, offeredToolName } from './codex/codex-versions.js';

// participants' approvals put to the person at an interactive run's TUI
export {
  answerFromTui,
  watchFeed,
  type FeedListener,
  type RootApprovalFeed,
} from './approvals/root-approval-feed.js';
export {
  decisionOf,
  elicitationMessage,
  promptApprovals,
  type ApprovalChannel,
  type ElicitingServer,
} from './approvals/tui-approvals.js';
