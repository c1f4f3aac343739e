/**
 * `profile doctor` as a function: the pack's own problems, grant resolution against the registry,
 * the registry diagnostics and readiness of the servers the profile uses (severity following the
 * grants' `required`), credentials file permissions, codex-base.toml, the Codex binary and its
 * version (against the version table), tool pins, and what the detected Codex does not isolate.
 * Launches no MCP server.
 */
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import {
  CODEX_INSTALL_COMMAND,
  codexInUse,
  codexVersionDiagnostics,
} from '../../runtime/codex/codex-in-use.js';
import { NEWEST_CODEX, type CodexVersionFacts } from '../../config/codex/codex-versions.js';
import { baseKeyDiagnostics } from '../../config/codex/version-keys.js';
import { loadCodexBase } from '../../config/compile/codex-base.js';
import { mcpRevisionDiagnostics } from './mcp-revision.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import { readConfigFile } from '../../config/registry/read-config-file.js';
import { modelSideCheck, type ModelAccess } from './doctor-model.js';
import {
  configFiles,
  type Directories,
  type Environment,
} from '../../foundation/paths/directories.js';
import { loadCredentials } from '../../config/registry/credentials.js';
import type { VariablePresence } from '../../config/registry/credentials-types.js';
import { loadRegistry } from '../../config/registry/load-registry.js';
import { checkReadiness, type Readiness } from '../../config/registry/readiness.js';
import type { Transport } from '../../config/registry/types.js';
import { readLockFile } from '../../config/lock/lock-file.js';
import { checkPins } from '../../config/lock/check-pins.js';
import { pinnedToolNames } from '../../config/lock/pin-check.js';
import { knownCredentials } from '../../config/registry/credential-literals.js';
import { referencedEnvVars, type RegistryEntry } from '../../config/registry/types.js';
import { profileCredentialLiterals } from '../../config/profile/pack-credential-literals.js';
import { nativeIsolationDiagnostics } from '../../config/profile/native-isolation.js';
import { wireEnforcement } from '../../runtime/model-wire/enforcement.js';
import { openPack } from '../../config/profile/pack-store.js';
import { planToJson, type ResolvedPlanJson } from '../../config/profile/plan-json.js';
import { resolveAgainst, withGrantProblems } from '../../config/profile/resolve-pack.js';
import { securityNotes } from '../../config/profile/security-notes.js';
import type { ProfilePack, ResolvedPlan } from '../../config/profile/types.js';
import { ownValue } from '../../config/registry/own-record.js';
import { containment } from '../../foundation/process/containment.js';
import { containmentDiagnostics } from '../../runtime/session/containment-check.js';
import { bwrapCandidates, findHostView } from '../../foundation/process/host-view.js';
import { hostViewDiagnostics } from '../../runtime/session/host-view-check.js';

/** The newest Codex series codex-mmo's behaviour was measured against (the version table's first row). */
export const MEASURED_CODEX_VERSION = NEWEST_CODEX.series;

export interface DoctorInput {
  /** Installed pack name or pack directory path. */
  readonly nameOrPath: string;
  readonly dirs: Directories;
  readonly cwd: string;
  /** The launch environment: PATH for commands and Codex, variables for readiness. */
  readonly env: Environment;
  readonly home: string;
}

export interface DoctorServer {
  readonly id: string;
  readonly transport?: Transport;
  /** Roles granted the server. */
  readonly roles: readonly string[];
  /** Whether any grant of it is `required`. */
  readonly required: boolean;
  /** Defined and valid in the registry and ready: command, working directory, every variable. */
  readonly ok: boolean;
  readonly pinned: boolean;
  /** Whether the definition changed since it was pinned (`definition-drift`). */
  readonly drifted: boolean;
  readonly command?: { readonly name: string; readonly resolved?: string };
  readonly variables: readonly VariablePresence[];
}

export interface DoctorReport {
  readonly ok: boolean;
  readonly profile?: string;
  /** The pack directory checked. */
  readonly pack?: string;
  readonly diagnostics: Diagnostic[];
  readonly codex: {
    readonly found: boolean;
    readonly path?: string;
    readonly version?: string;
    /** Whether the version is one of the supported versions (`docs/codex-versions.md`). */
    readonly supported?: boolean;
  };
  readonly servers: DoctorServer[];
  /** The resolved plan, when grants resolved. */
  readonly plan?: ResolvedPlanJson;
  /** Model login and provider key presence (names only, never values). */
  readonly model?: ModelAccess;
}

interface GrantUse {
  readonly roles: string[];
  required: boolean;
}

function grantUses(pack: ProfilePack): Map<string, GrantUse> {
  const uses = new Map<string, GrantUse>();
  for (const role of Object.values(pack.agents)) {
    for (const grant of Object.values(role.grants)) {
      const use = uses.get(grant.server) ?? { roles: [], required: false };
      use.roles.push(role.name);
      use.required ||= grant.required;
      uses.set(grant.server, use);
    }
  }
  return new Map([...uses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Readiness diagnostics regraded by the grants: a problem of a server some role requires is an
 * error, of a server only granted as not required a warning. A missing variable is reported once,
 * naming every server that needs it; if any of them is required, it is an error.
 */
function gradeReadiness(
  readiness: readonly Readiness[],
  uses: ReadonlyMap<string, GrantUse>,
  credentialsFile: string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const missing = new Map<string, { servers: string[]; required: boolean; first: Diagnostic }>();
  for (const r of readiness) {
    const use = uses.get(r.server);
    const required = use?.required ?? true;
    for (const d of r.diagnostics) {
      if (d.code === 'missing-env-var') continue;
      const severity = d.severity === 'error' && !required ? 'warning' : d.severity;
      out.push(
        severity === d.severity
          ? d
          : {
              ...d,
              severity,
              message: `${d.message} (only non-required grants use \`${r.server}\`, so Codex starts without it)`,
            },
      );
    }
    for (const variable of r.variables) {
      if (variable.present) continue;
      const first = r.diagnostics.find(
        (d) => d.code === 'missing-env-var' && new RegExp(`\\b${variable.name}\\b`).test(d.message),
      );
      const entry = missing.get(variable.name);
      if (entry) {
        entry.servers.push(r.server);
        if (required && !entry.required) {
          entry.required = true;
          if (first) entry.first = first;
        }
      } else {
        missing.set(variable.name, {
          servers: [r.server],
          required,
          first: first ?? diagnostic({ code: 'missing-env-var', message: '', server: r.server }),
        });
      }
    }
  }
  for (const [name, entry] of missing) {
    const describeServer = (id: string): string => {
      const use = uses.get(id);
      const roles = use?.roles.join(', ') ?? '';
      return `\`${id}\` (${use?.required === true ? 'required' : 'not required'} for ${roles})`;
    };
    const who = entry.servers.map(describeServer).join(', ');
    const fix = `add a ${name}= line to ${credentialsFile} or export it in the launch environment`;
    out.push(
      diagnostic({
        severity: entry.required ? 'error' : 'warning',
        code: 'missing-env-var',
        message: entry.required
          ? `environment variable ${name} is not set; ${who} need${entry.servers.length === 1 ? 's' : ''} it and a required server that cannot start stops the session: ${fix}`
          : `environment variable ${name} is not set; ${who} need${entry.servers.length === 1 ? 's' : ''} it, and since no grant requires ${entry.servers.length === 1 ? 'that server' : 'those servers'} Codex starts without ${entry.servers.length === 1 ? 'it' : 'them'}: ${fix}`,
        file: entry.first.file,
        line: entry.first.line,
        column: entry.first.column,
        path: entry.first.path,
        server: entry.first.server,
      }),
    );
  }
  return out;
}

function unreachableRoles(pack: ProfilePack, plan: ResolvedPlan): Diagnostic[] {
  const started = new Set(plan.processes.flatMap((p) => p.roles));
  const out: Diagnostic[] = [];
  for (const name of Object.keys(pack.agents)) {
    if (started.has(name)) continue;
    const at = pack.positions?.lookup(['agents', name]);
    out.push(
      diagnostic({
        severity: 'info',
        code: 'unreachable-role',
        message: `role \`${name}\` never runs: it is not the root and no running role lists it in \`native_agents\` or \`spawn\``,
        file: pack.file,
        line: at?.line,
        column: at?.column,
        path: `agents.${name}`,
      }),
    );
  }
  return out;
}

async function codexCheck(input: DoctorInput): Promise<{
  codex: DoctorReport['codex'];
  facts: CodexVersionFacts;
  /** The binary a session would start, when it runs. */
  launchCommand?: string;
  diagnostics: Diagnostic[];
}> {
  const inUse = await codexInUse(input.dirs.codexBin, input.env, input.cwd);
  const { detection, facts } = inUse;
  const fix = `codex-mmo needs Codex to run sessions: install it (${CODEX_INSTALL_COMMAND}) or point --codex-bin or CODEX_MMO_CODEX_BIN at the binary`;
  if (detection.kind === 'not-found') {
    return {
      codex: { found: false },
      facts,
      diagnostics: [
        diagnostic({
          code: 'codex-not-found',
          message: `Codex binary not found (${detection.reason}); this is an error because ${fix}`,
        }),
      ],
    };
  }
  if (detection.kind === 'failed') {
    return {
      codex: { found: false, path: detection.path },
      facts,
      diagnostics: [
        diagnostic({
          code: 'codex-not-runnable',
          message: `Codex binary ${detection.path} does not work: ${detection.reason}; ${fix}`,
        }),
      ],
    };
  }
  return {
    codex: {
      found: true,
      path: detection.path,
      version: detection.version,
      supported: inUse.supported,
    },
    facts,
    launchCommand: detection.launch.command,
    diagnostics: codexVersionDiagnostics(inUse),
  };
}

/** Checks one profile end to end without launching anything but `codex --version`. */
export async function doctorProfile(input: DoctorInput): Promise<DoctorReport> {
  const diagnostics: Diagnostic[] = [];
  const codex = await codexCheck(input);
  const finish = (rest: Partial<DoctorReport> = {}): DoctorReport => {
    const all = [...diagnostics, ...codex.diagnostics];
    return {
      ok: !hasErrors(all),
      ...rest,
      diagnostics: all,
      codex: codex.codex,
      servers: rest.servers ?? [],
    };
  };

  const { dir, loaded } = await openPack(input.nameOrPath, input.dirs.dataDir, input.cwd);
  const pack = loaded.pack;
  const lockFile = await readLockFile(input.dirs.configDir);
  // the lock knows what each pinned server offers: a grant naming a real tool is never blamed
  // for a typo in the operator's list
  const pinnedTools = new Map<string, readonly string[]>();
  for (const [id, pin] of Object.entries(lockFile.lock.servers)) {
    pinnedTools.set(id, pinnedToolNames(pin));
  }
  if (pack === undefined) {
    // the grants are still checked against the registry: one run reports every problem
    diagnostics.push(
      ...(loaded.partial !== undefined
        ? withGrantProblems(loaded, await loadRegistry(input.dirs.configDir), {}, pinnedTools)
        : loaded.diagnostics),
    );
    return finish(dir !== undefined ? { pack: dir } : {});
  }
  diagnostics.push(...loaded.diagnostics);
  diagnostics.push(...containmentDiagnostics(containment(), pack));
  // the view's own check: `run` and `exec` refuse a networked role without it
  const view =
    codex.launchCommand === undefined
      ? undefined
      : await findHostView(bwrapCandidates(codex.launchCommand));
  if (view !== undefined) diagnostics.push(...hostViewDiagnostics(view, pack, false));

  const uses = grantUses(pack);
  const ids = [...uses.keys()];
  const registry = await loadRegistry(input.dirs.configDir);
  const resolved = resolveAgainst(pack, registry, {}, pinnedTools);
  diagnostics.push(...resolved.diagnostics);

  const files = configFiles(input.dirs.configDir);
  const credentials = await loadCredentials(files.credentials, input.env);
  diagnostics.push(...credentials.diagnostics);
  // compile copies codex-base.toml into every rendered config: its problems stop a session too
  const codexBase = await loadCodexBase(input.dirs.configDir);
  diagnostics.push(
    ...codexBase.diagnostics,
    ...baseKeyDiagnostics(codexBase.base, codexBase.file, codex.facts),
    ...mcpRevisionDiagnostics(codexBase, codex.facts, codex.codex),
  );
  const model = await modelSideOf(input, codexBase, credentials.source, codex.codex);
  diagnostics.push(...model.diagnostics);

  const readiness: Readiness[] = [];
  for (const id of ids) {
    const entry = registry.servers.get(id);
    if (entry === undefined) continue;
    readiness.push(
      await checkReadiness(entry, {
        env: input.env,
        home: input.home,
        credentials: credentials.source,
      }),
    );
  }
  const graded = gradeReadiness(readiness, uses, files.credentials);
  diagnostics.push(...graded);

  const grantedEntries = ids
    .map((id) => registry.servers.get(id))
    .filter((e): e is RegistryEntry => e !== undefined);
  const known = knownCredentials(
    credentials.source,
    [...registry.servers.values()].flatMap((e) => referencedEnvVars(e.definition)),
  );
  diagnostics.push(
    ...profileCredentialLiterals(
      {
        profile: pack,
        packFile: pack.file,
        ...(pack.positions !== undefined ? { packPositions: pack.positions } : {}),
        base: codexBase.base,
        baseFile: codexBase.file,
        entries: grantedEntries,
      },
      known,
    ),
  );
  const pinFindings = await checkPins(grantedEntries, lockFile, {
    env: input.env,
    home: input.home,
    readiness,
  });
  diagnostics.push(...pinFindings);
  const drifted = new Set(
    pinFindings.filter((d) => d.code === 'definition-drift').map((d) => d.server),
  );
  const lock = { pins: lockFile.lock.servers };
  diagnostics.push(
    ...lockFile.diagnostics.filter((d) => d.server === undefined || ids.includes(d.server)),
  );
  for (const id of ids) {
    if (!registry.servers.has(id) || ownValue(lock.pins, id) !== undefined) continue;
    diagnostics.push(
      diagnostic({
        severity: 'info',
        code: 'server-not-pinned',
        message: `no tool pin for \`${id}\` in ${files.lock}; after reviewing its tools, run codex-mmo tool-mcp pin ${id} so that a changed tool surface is reported as drift`,
        server: id,
      }),
    );
  }

  const plan = resolved.plan;
  if (plan) {
    const source = { file: pack.file, ...(pack.positions ? { positions: pack.positions } : {}) };
    // one per native role per process: many for a large pack, so no spread into push()
    for (const found of [
      nativeIsolationDiagnostics(
        pack,
        plan,
        source,
        codex.facts,
        wireEnforcement(codexBase.base, codex.codex.version),
      ),
      securityNotes(pack, plan, source),
      unreachableRoles(pack, plan),
    ]) {
      for (const d of found) diagnostics.push(d);
    }
  }

  const servers: DoctorServer[] = ids.map((id) => {
    const use = uses.get(id) ?? { roles: [], required: true };
    const entry = registry.servers.get(id);
    const ready = readiness.find((r) => r.server === id);
    return {
      id,
      ...(entry ? { transport: entry.definition.transport } : {}),
      roles: [...use.roles],
      required: use.required,
      ok: entry !== undefined && (ready?.ok ?? false),
      pinned: ownValue(lock.pins, id) !== undefined,
      drifted: drifted.has(id),
      ...(ready?.command ? { command: ready.command } : {}),
      variables: ready?.variables ?? [],
    };
  });

  return finish({
    profile: pack.name,
    pack: pack.dir,
    servers,
    ...(plan ? { plan: planToJson(plan) } : {}),
    model: model.access,
  });
}

/** The model-side checks (doctor-model.ts) with what doctor has already read. */
async function modelSideOf(
  input: DoctorInput,
  codexBase: Awaited<ReturnType<typeof loadCodexBase>>,
  credentials: CredentialSource,
  codex: DoctorReport['codex'],
): Promise<{ access: ModelAccess; diagnostics: Diagnostic[] }> {
  const read = codexBase.exists ? await readConfigFile(codexBase.file) : undefined;
  return modelSideCheck({
    baseFile: codexBase.file,
    ...(read?.kind === 'ok' ? { baseBytes: read.bytes } : {}),
    base: codexBase.base,
    env: input.env,
    home: input.home,
    credentials,
    ...(codex.found && codex.path !== undefined ? { codexPath: codex.path } : {}),
  });
}
