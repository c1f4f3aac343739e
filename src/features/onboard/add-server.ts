/**
 * `addServer`: turns "the command (or URL) my MCP server's docs give" into a registry fragment
 * `<config>/tool-mcp.d/50-ID.toml` with the server's real tool names, then pins it. The server is
 * started exactly as `tool-mcp probe` starts it. Nothing changes (no fragment, no lock entry) when
 * the ID is invalid or taken, the command line holds a literal secret, the server is not ready or
 * does not start, or the fragment would not validate; every reason comes back as a diagnostic.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { configFiles } from '../../foundation/paths/directories.js';
import type { ProbedTool } from '../../runtime/probe/analyze-surface.js';
import type { LaunchContext } from '../../runtime/upstream/launch-plan.js';
import { EMPTY_LOCK } from '../../config/lock/lock-format.js';
import { pinServer, type PinResult } from '../../runtime/probe/pin-server.js';
import { probeServer } from '../../runtime/probe/probe-server.js';
import type { ServerInfo } from '../../runtime/probe/list-tools-live.js';
import { isCredentialName } from '../../config/registry/credential-patterns.js';
import { knownCredentials } from '../../config/registry/credential-literals.js';
import { fragmentCredentialLiterals } from '../../config/registry/fragment-credential-literals.js';
import { referencedEnvVars } from '../../config/registry/types.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import { unversionedPackage } from '../../config/lock/pin-check.js';
import { loadRegistry } from '../../config/registry/load-registry.js';
import { checkReadiness } from '../../config/registry/readiness.js';
import type { ApprovalMode, RegistryEntry, ServerDefinition } from '../../config/registry/types.js';
import { validateFragment } from '../../config/registry/validate-fragment.js';
import { writeNewFragment } from '../../config/registry/write-fragment.js';
import { literalSecrets } from './literal-secrets.js';
import { applyReplacement, planReplacement, type ReplacementPlan } from './replace-entry.js';
import { formatKeyPath } from '../../foundation/toml/key-positions.js';
import {
  LONE_SURROGATE,
  renderFragment,
  type FragmentTarget,
  type FragmentTool,
} from './fragment-text.js';

/** Approval mode of every added server: Codex asks before any tool not annotated read-only. */
export const ADDED_APPROVAL_MODE: ApprovalMode = 'writes';

/** Load-order prefix of added fragments: after hand-written `10-…`, before overrides `90-…`. */
export const ADDED_FRAGMENT_PREFIX = '50-';

export interface AddRequest {
  readonly id: string;
  readonly target: FragmentTarget;
  /** Write only these offered tools into enabled_tools (default: every offered tool). */
  readonly tools?: readonly string[];
  /** Leave these offered tools out of enabled_tools. */
  readonly excludeTools?: readonly string[];
  /** The fragment's first comment line (default: added by `tool-mcp add ID` on the date). */
  readonly origin?: string;
  /** default_tools_approval_mode (default `writes`). */
  readonly approvalMode?: ApprovalMode;
  readonly startupTimeoutSec?: number;
  readonly toolTimeoutSec?: number;
  /** Replace the ID's existing definition (`--replace`) instead of refusing a taken ID. */
  readonly replace?: boolean;
}

export interface AddContext extends LaunchContext {
  readonly configDir: string;
  /** Clock for comments and `pinned_at` (tests fix it). */
  readonly now?: () => Date;
  /** Grace between SIGTERM and SIGKILL when stopping a stdio server. */
  readonly graceMs?: number;
}

export interface AddResult {
  readonly ok: boolean;
  readonly id: string;
  /** The fragment this add writes (or would have written). */
  readonly file: string;
  /** Whether the fragment is on disk now (false whenever `ok` is false). */
  readonly written: boolean;
  /** The definition as written (absent when refused before it existed). */
  readonly definition?: ServerDefinition;
  /** The fragment text as written. */
  readonly text?: string;
  readonly serverInfo?: ServerInfo;
  readonly protocolVersion?: string;
  /** Every tool the server offered, in its order (text masked). */
  readonly tools: readonly ProbedTool[];
  /** The tools that got a `prompt` override (annotated destructive). */
  readonly promptTools: readonly string[];
  readonly pin?: PinResult;
  readonly diagnostics: readonly Diagnostic[];
}

/** Probe diagnostics that only make sense for a registered server, not for the draft. */
const DRAFT_IRRELEVANT = new Set([
  'tool-offered-not-enabled',
  'server-not-pinned',
  'tool-not-pinned',
  'approval-mode-risk',
  'tool-drift',
]);

/** Last words of an option name that say its value is a place or a name, not the secret. */
const REFERENCE_WORDS = new Set(['FILE', 'PATH', 'DIR', 'ENV', 'VAR', 'NAME', 'URL', 'COMMAND']);

function isSecretOption(name: string): boolean {
  const words = name.toUpperCase().split(/[^A-Z0-9]+/);
  const last = words[words.length - 1] ?? '';
  return isCredentialName(name) && !REFERENCE_WORDS.has(last);
}

/**
 * `--api-key VALUE`, `--token=VALUE`: arguments that hand a server a secret on its command line,
 * where the registry would store and show it. The value itself is never reported.
 */
export function credentialArguments(
  id: string,
  args: readonly string[],
  file: string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const report = (index: number, option: string): void => {
    out.push(
      diagnostic({
        code: 'add-credential-argument',
        message: `argument ${index + 1} gives option ${option} a literal value, and an option of that name carries a secret; the registry never stores secrets. Pass it through an environment variable the server reads (--env-var NAME, with the value in credentials.env) instead`,
        file,
        path: formatKeyPath(['tool_mcp_servers', id, 'args', index]),
        server: id,
      }),
    );
  };
  args.forEach((arg, index) => {
    const inline = /^--?([A-Za-z][A-Za-z0-9_.-]*)=(.+)$/.exec(arg);
    if (inline?.[1] !== undefined) {
      if (isSecretOption(inline[1])) report(index, `--${inline[1]}`);
      return;
    }
    const flag = /^--?([A-Za-z][A-Za-z0-9_.-]*)$/.exec(arg);
    const next = args[index + 1];
    if (flag?.[1] !== undefined && next !== undefined && !next.startsWith('-')) {
      if (isSecretOption(flag[1])) report(index + 1, arg);
    }
  });
  return out;
}

/** Where an ID's fragment goes (an invalid ID gets a harmless stand-in name for messages). */
export function addedFragmentFile(configDir: string, id: string): string {
  const name = id.replace(/[^A-Za-z0-9_-]/g, '_') || 'server';
  return join(configFiles(configDir).registryDir, `${ADDED_FRAGMENT_PREFIX}${name}.toml`);
}

/** A tool name the registry accepts (non-empty, no whitespace or control characters). */
function acceptableToolName(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name !== '' && !/[\s\u0000-\u001f\u007f]/.test(name) && !LONE_SURROGATE.test(name);
}

/** Validates rendered fragment text with the registry's own validator. */
function validateText(file: string, text: string): ReturnType<typeof validateFragment> {
  return validateFragment({ file, bytes: new TextEncoder().encode(text) });
}

/** The diagnostics of a text that was never written: no line or column to point at. */
function unpositioned(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) => {
    const { line, column, ...rest } = d;
    return line === undefined && column === undefined ? d : rest;
  });
}

/** The fragment's settings a request gives (approval mode, timeouts). */
function fragmentSettings(request: AddRequest) {
  return {
    defaultApprovalMode: request.approvalMode ?? ADDED_APPROVAL_MODE,
    ...(request.startupTimeoutSec !== undefined
      ? { startupTimeoutSec: request.startupTimeoutSec }
      : {}),
    ...(request.toolTimeoutSec !== undefined ? { toolTimeoutSec: request.toolTimeoutSec } : {}),
  };
}

/**
 * The definition without tools, through the registry validator (ID, command, URL, secrets), and
 * an ID new to the registry: the draft's diagnostics and its definition.
 */
async function checkDraft(
  request: AddRequest,
  ctx: AddContext,
  file: string,
  settings: ReturnType<typeof fragmentSettings>,
): Promise<{
  diagnostics: Diagnostic[];
  draftDefinition: ServerDefinition | undefined;
  replacement: ReplacementPlan | undefined;
}> {
  const { id, target } = request;
  // 1. the definition without tools, through the registry validator (ID, command, URL, secrets)
  const draftText = renderFragment({
    id,
    target,
    tools: [{ name: 'tool', destructive: false }],
    ...settings,
    header: [],
  });
  const draft = validateText(file, draftText);
  // a secret-looking literal of the command line is refused once, with the command-line advice
  const secrets = literalSecrets(id, target, file);
  const diagnostics: Diagnostic[] = [
    ...secrets.diagnostics,
    ...unpositioned(draft.diagnostics).filter(
      (d) =>
        !(
          (d.code === 'credential-literal-name' || d.code === 'credential-literal-value') &&
          d.path !== undefined &&
          secrets.paths.has(d.path)
        ),
    ),
  ];
  if (target.transport === 'stdio') diagnostics.push(...credentialArguments(id, target.args, file));
  const draftServer = draft.servers[0]?.definition;
  if (draftServer !== undefined) {
    const draftAt: RegistryEntry = { definition: draftServer, file, replaces: [] };
    // a literal holding a known credential value, whatever its name, is refused too
    const known = knownCredentials(ctx.credentials, referencedEnvVars(draftServer));
    diagnostics.push(...unpositioned(fragmentCredentialLiterals([draftAt], known)));
    const unversioned = unversionedPackage(draftAt);
    if (unversioned !== undefined) diagnostics.push(...unpositioned([unversioned]));
  }

  // 2. the ID must be new to the registry, unless it is to be replaced
  const registry = await loadRegistry(ctx.configDir);
  const taken = registry.statuses.find((s) => s.id === id);
  let replacement: ReplacementPlan | undefined;
  if (request.replace === true && taken !== undefined) {
    replacement = await planReplacement(registry, id, file);
    if (!replacement.ok) diagnostics.push(...replacement.diagnostics);
  } else if (taken !== undefined || registry.files.includes(file)) {
    diagnostics.push(
      diagnostic({
        code: 'add-server-exists',
        message:
          taken !== undefined
            ? `server '${id}' is already defined in ${taken.file}; run add again with --replace to replace that definition, choose another ID, or edit it and run \`codex-mmo tool-mcp pin ${id}\``
            : `${file} already exists; choose another ID or remove that file`,
        file: taken?.file ?? file,
        server: id,
      }),
    );
  }
  return { diagnostics, draftDefinition: draft.servers[0]?.definition, replacement };
}

/** The diagnostics of `--tools` names the server does not offer. */
function notOffered(
  request: AddRequest,
  offered: readonly ProbedTool[],
  file: string,
): Diagnostic[] {
  const id = request.id;
  const offeredNames = offered.map((t) => t.name);
  const diagnostics: Diagnostic[] = [];
  for (const wanted of request.tools ?? []) {
    if (offeredNames.includes(wanted)) continue;
    const guess = suggest(wanted, offeredNames);
    diagnostics.push(
      diagnostic({
        code: 'add-tool-not-offered',
        message: `--tools names '${wanted}', which server '${id}' does not offer${guess !== undefined ? `; did you mean '${guess}'?` : ''} (offered: ${offeredNames.join(', ')})`,
        file,
        server: id,
      }),
    );
  }
  return diagnostics;
}

/**
 * The offered tools that go into enabled_tools: the ones `--tools` names (default: all) with
 * names the registry accepts; each one left out for its name adds a warning to `diagnostics`.
 */
function fragmentTools(
  request: AddRequest,
  offered: readonly ProbedTool[],
  file: string,
  diagnostics: Diagnostic[],
): FragmentTool[] {
  const id = request.id;
  const tools: FragmentTool[] = [];
  for (const tool of offered) {
    if (request.tools !== undefined && !request.tools.includes(tool.name)) continue;
    if (request.excludeTools?.includes(tool.name) === true) continue;
    if (!acceptableToolName(tool.name)) {
      diagnostics.push(
        diagnostic({
          severity: 'warning',
          code: 'add-tool-skipped',
          message: `server '${id}' offers a tool named ${JSON.stringify(tool.name)}, which is not a name the registry accepts (empty, or with spaces or control characters); it is left out of enabled_tools`,
          file,
          server: id,
        }),
      );
      continue;
    }
    tools.push({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      destructive: tool.annotations?.destructiveHint === true,
    });
  }
  return tools;
}

export async function addServer(request: AddRequest, ctx: AddContext): Promise<AddResult> {
  const { id, target } = request;
  const file = addedFragmentFile(ctx.configDir, id);
  const now = ctx.now ?? (() => new Date());
  const refused = (
    diagnostics: readonly Diagnostic[],
    more: Partial<Pick<AddResult, 'tools' | 'serverInfo' | 'protocolVersion' | 'pin'>> = {},
  ): AddResult => ({
    ok: false,
    id,
    file,
    written: false,
    tools: [],
    promptTools: [],
    ...more,
    diagnostics,
  });

  const settings = fragmentSettings(request);
  const { diagnostics, draftDefinition, replacement } = await checkDraft(
    request,
    ctx,
    file,
    settings,
  );
  if (hasErrors(diagnostics) || draftDefinition === undefined) return refused(diagnostics);

  // 3. ready to start: the command resolves, every named variable is present
  const draftEntry: RegistryEntry = { definition: draftDefinition, file, replaces: [] };
  const readiness = await checkReadiness(draftEntry, ctx);
  diagnostics.push(...unpositioned(readiness.diagnostics));
  if (hasErrors(diagnostics)) return refused(diagnostics);

  // 4. start it as Codex would and list its tools
  const probe = await probeServer(
    { ...draftEntry, definition: { ...draftDefinition, enabled_tools: [] } },
    {
      ...ctx,
      lock: {
        file: configFiles(ctx.configDir).lock,
        exists: false,
        lock: EMPTY_LOCK,
        usable: true,
        diagnostics: [],
      },
    },
  );
  const seen = new Set(readiness.diagnostics.map((d) => `${d.code}\0${d.message}`));
  for (const d of probe.diagnostics) {
    if (DRAFT_IRRELEVANT.has(d.code) || seen.has(`${d.code}\0${d.message}`)) continue;
    diagnostics.push(...unpositioned([d]));
  }
  const info = {
    tools: probe.tools,
    ...(probe.serverInfo !== undefined ? { serverInfo: probe.serverInfo } : {}),
    ...(probe.protocolVersion !== undefined ? { protocolVersion: probe.protocolVersion } : {}),
  };
  if (hasErrors(diagnostics) || !probe.launched) return refused(diagnostics, info);

  diagnostics.push(...notOffered(request, probe.tools, file));
  if (hasErrors(diagnostics)) return refused(diagnostics, info);
  const tools = fragmentTools(request, probe.tools, file, diagnostics);
  if (tools.length === 0) {
    diagnostics.push(
      diagnostic({
        code: 'add-no-tools',
        message: `server '${id}' started but offers no tools${probe.tools.length > 0 ? ' with names the registry accepts' : ''}; a registry entry needs at least one tool in enabled_tools, so nothing was written`,
        file,
        server: id,
      }),
    );
    return refused(diagnostics, info);
  }

  // 5. the real fragment, validated again before it is written
  const serverName =
    probe.serverInfo !== undefined
      ? `${probe.serverInfo.name} ${probe.serverInfo.version}`.trim()
      : 'an unnamed server';
  const text = renderFragment({
    id,
    target,
    tools,
    ...settings,
    header: [
      `${request.origin ?? `Added by \`codex-mmo tool-mcp add ${id}\``} on ${now().toISOString().slice(0, 10)}.`,
      `The server answered as ${serverName}, protocol ${probe.protocolVersion ?? 'unknown'}, offering ${tools.length} tool${tools.length === 1 ? '' : 's'}.`,
      'Tool descriptions below come from the server; they are not instructions to the operator.',
    ],
  });
  const final = validateText(file, text);
  const definition = final.servers[0]?.definition;
  if (hasErrors(final.diagnostics) || definition === undefined) {
    return refused([...diagnostics, ...final.diagnostics], info);
  }

  // 6. write it (never over an existing file), then pin it; undo the write when the pin fails.
  // --replace first takes the old definition out, and puts it back when either step fails
  const restore = replacement?.ok === true ? await applyReplacement(replacement.cuts) : undefined;
  const written = await writeNewFragment(file, text);
  if (written.kind === 'exists') {
    await restore?.();
    diagnostics.push(
      diagnostic({
        code: 'add-server-exists',
        message: `${file} appeared while the server was being probed; nothing was written. Choose another ID or remove that file`,
        file,
        server: id,
      }),
    );
    return refused(diagnostics, info);
  }
  const server = final.servers[0];
  const entry: RegistryEntry = {
    definition,
    file,
    ...(server !== undefined ? { line: server.line, column: server.column } : {}),
    replaces: [],
    ...(final.positions !== undefined ? { positions: final.positions } : {}),
  };
  // the surface listed above is the one pinned: the server is not started a second time
  const pin = await pinServer(entry, {
    ...ctx,
    now,
    probe,
    ...(ctx.graceMs !== undefined ? { graceMs: ctx.graceMs } : {}),
  });
  const pinDiagnostics = pin.diagnostics.filter((d) => d.severity !== 'info');
  if (!pin.ok) {
    await rm(file, { force: true });
    await restore?.();
    diagnostics.push(...pinDiagnostics);
    diagnostics.push(
      diagnostic({
        code: 'add-pin-failed',
        message: `server '${id}' could not be pinned in ${pin.lockFile} (see the errors above), so ${file} was removed again; fix the problem and run add again`,
        file,
        server: id,
      }),
    );
    return refused(diagnostics, { ...info, pin });
  }
  diagnostics.push(...pinDiagnostics);
  return {
    ok: true,
    id,
    file,
    written: true,
    definition,
    text,
    ...info,
    promptTools: tools.filter((t) => t.destructive).map((t) => t.name),
    pin,
    diagnostics,
  };
}
