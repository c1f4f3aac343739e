/**
 * Plans `tool-mcp import` (pure): detects a file's format, parses it, and decides for each
 * selected server its registry ID, the fragment it would write, the secrets that move to
 * credentials.env and the variables still to set — or why it cannot be imported (an invalid,
 * taken or repeated ID, an unknown `--only` name, a secret that conflicts). Nothing is written.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import type { KnownCredential } from '../../config/registry/credential-literals.js';
import { registryDiagnostic } from '../../config/registry/diagnostic-codes.js';
import {
  REGISTRY_SCHEMA_VERSION,
  SERVER_ID_PATTERN,
  type ApprovalMode,
} from '../../config/registry/types.js';
import { validateFragment } from '../../config/registry/validate-fragment.js';
import { ADDED_APPROVAL_MODE } from './add-server.js';
import { renderFragment, type FragmentTarget } from './fragment-text.js';
import { parseClaudeConfig } from './import-claude.js';
import { parseCodexConfig } from './import-codex.js';
import { parseServerJson } from './import-server-json.js';
import type {
  ImportCandidate,
  ImportFormat,
  MovedSecret,
  ParsedImportFile,
  SourceLocation,
} from './import-types.js';

/** The format of a file by its name and content, or undefined when it is none of the three. */
export function detectFormat(file: string, text: string): ImportFormat | undefined {
  if (/\.toml$/i.test(file)) return 'codex';
  const trimmed = text.trimStart().replace(/^\uFEFF/, '');
  if (!trimmed.startsWith('{')) return /^\s*\[mcp_servers/m.test(text) ? 'codex' : undefined;
  if (/"\$schema"\s*:\s*"[^"]*server(?:\.schema)?\.json"/.test(text)) return 'server-json';
  if (/"(?:packages|remotes)"\s*:/.test(text) && !/"mcpServers"\s*:/.test(text)) {
    return 'server-json';
  }
  if (/"(?:mcpServers|projects)"\s*:/.test(text)) return 'claude';
  return undefined;
}

/** Parses `text` as `format`. */
export function parseImportFile(
  format: ImportFormat,
  text: string,
  file: string,
  known: readonly KnownCredential[],
): ParsedImportFile {
  switch (format) {
    case 'codex':
      return parseCodexConfig(text, file, known);
    case 'claude':
      return parseClaudeConfig(text, file, known);
    case 'server-json':
      return parseServerJson(text, file, known);
  }
}

/** An ID the registry accepts, made from a name: `GitHub.Server` → `github-server`. */
export function suggestId(name: string): string {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 64);
  if (id === 'mmo_mesh') return 'mmo-mesh-server';
  return SERVER_ID_PATTERN.test(id) ? id : 'server';
}

export interface PlanContext {
  /** IDs the registry defines (valid or not). */
  readonly takenIds: ReadonlySet<string>;
  /** Where a new fragment for an ID goes, and whether that file already exists. */
  readonly fragmentFile: (id: string) => string;
  readonly fileExists: (file: string) => boolean;
  /** A variable's current value (launch environment, then credentials.env). Never printed. */
  readonly lookup: (name: string) => string | undefined;
  /** Servers to import, by source name or proposed ID (default: all). */
  readonly only?: readonly string[];
  /** Source name (or proposed ID) → registry ID. */
  readonly rename?: Readonly<Record<string, string>>;
  readonly moveSecrets: boolean;
  /** Whether each server will be started to list its tools (then every variable must be set). */
  readonly probe?: boolean;
  /** The fragment's first comment line. */
  readonly origin: string;
}

/** One server of the file as it would be imported. */
export interface PlannedServer {
  readonly name: string;
  readonly id: string;
  readonly source: SourceLocation;
  /** The fragment file it would be written to. */
  readonly file: string;
  readonly target?: FragmentTarget;
  readonly tools?: readonly string[];
  readonly excludeTools?: readonly string[];
  readonly approvalMode: ApprovalMode;
  readonly startupTimeoutSec?: number;
  readonly toolTimeoutSec?: number;
  /** The fragment's text, tools from the source (a probe lists them otherwise). */
  readonly preview?: string;
  /** Secrets to write to credentials.env (only with --move-secrets; values never printed). */
  readonly move: readonly MovedSecret[];
  /** Every variable the fragment names. */
  readonly variables: readonly string[];
  /** Variables set neither in the environment nor in credentials.env, nor moved. */
  readonly missing: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
  /** No error: it can be written. */
  readonly ok: boolean;
}

export interface ImportPlan {
  readonly format: ImportFormat;
  readonly file: string;
  readonly servers: readonly PlannedServer[];
  /** Problems of the file or the options as a whole. */
  readonly diagnostics: readonly Diagnostic[];
  /** Whether every selected server can be imported and the file and options have no error. */
  readonly ok: boolean;
}

function hasError(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** The names and IDs an `--only`/`--rename` name may match. */
function matches(candidate: ImportCandidate, key: string): boolean {
  return candidate.name === key || candidate.id === key;
}

function selection(parsed: ParsedImportFile, ctx: PlanContext, out: Diagnostic[]) {
  const words = [...new Set(parsed.candidates.flatMap((c) => [c.name, c.id]))];
  const unknown = (key: string, option: string): void => {
    const near = suggest(key, words);
    out.push(
      registryDiagnostic('import-only-unknown', {
        message: `${option} names '${key}', which ${parsed.file} does not define${near !== undefined ? `; did you mean '${near}'?` : ''} (it defines: ${words.join(', ') || 'nothing'})`,
        file: parsed.file,
      }),
    );
  };
  for (const key of ctx.only ?? []) {
    if (!parsed.candidates.some((c) => matches(c, key))) unknown(key, '--only');
  }
  for (const key of Object.keys(ctx.rename ?? {})) {
    if (!parsed.candidates.some((c) => matches(c, key))) unknown(key, '--rename');
  }
  return parsed.candidates.filter(
    (c) => ctx.only === undefined || ctx.only.some((key) => matches(c, key)),
  );
}

/** The validator's diagnostics of a text that was never written: no line or column. */
function unpositioned(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) => {
    const { line, column, ...rest } = d;
    return line === undefined && column === undefined ? d : rest;
  });
}

function referencedOf(target: FragmentTarget): string[] {
  if (target.transport === 'stdio') return [...target.envVars];
  return [
    ...(target.bearerTokenEnvVar !== undefined ? [target.bearerTokenEnvVar] : []),
    ...Object.values(target.headerEnv),
  ];
}

/** The fragment text with the source's tools, or an empty list for the probe to fill. */
export function previewText(
  id: string,
  target: FragmentTarget,
  tools: readonly string[] | undefined,
  settings: Pick<PlannedServer, 'approvalMode' | 'startupTimeoutSec' | 'toolTimeoutSec'>,
  header: readonly string[],
): string {
  return renderFragment({
    id,
    target,
    tools: (tools ?? []).map((name) => ({ name, destructive: false })),
    defaultApprovalMode: settings.approvalMode,
    ...(settings.startupTimeoutSec !== undefined
      ? { startupTimeoutSec: settings.startupTimeoutSec }
      : {}),
    ...(settings.toolTimeoutSec !== undefined ? { toolTimeoutSec: settings.toolTimeoutSec } : {}),
    header,
    ...(tools === undefined
      ? { toolsComment: 'the tools the server offers, listed when it is probed' }
      : { toolsComment: 'the tools the source enabled; remove the ones no profile may ever get' }),
  });
}

export function planImport(parsed: ParsedImportFile, ctx: PlanContext): ImportPlan {
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const selected = selection(parsed, ctx, diagnostics);
  const ids = new Map<string, string>();
  const movedValues = new Map<string, string>();
  const servers = selected.map((candidate): PlannedServer => {
    const own: Diagnostic[] = [...candidate.diagnostics];
    const renamed = Object.entries(ctx.rename ?? {}).find(([key]) => matches(candidate, key));
    const id = renamed?.[1] ?? candidate.id;
    const file = ctx.fragmentFile(id);
    const source = candidate.source;
    const where = {
      file: source.file,
      ...(source.line !== undefined ? { line: source.line } : {}),
      ...(source.column !== undefined ? { column: source.column } : {}),
      path: source.path,
      server: id,
    };
    let idOk = SERVER_ID_PATTERN.test(id) && id !== 'mmo_mesh';
    if (!idOk) {
      const better = suggestId(id);
      own.push(
        registryDiagnostic('import-invalid-id', {
          message: `'${id}' is not a registry ID (lower-case letters, digits, _ and -, starting with a letter, at most 64; mmo_mesh is reserved); import it as '${better}' with --rename ${candidate.name}=${better}`,
          ...where,
        }),
      );
    } else if (ctx.takenIds.has(id) || ctx.fileExists(file)) {
      let free = `${id}-2`;
      for (let n = 3; ctx.takenIds.has(free) || ids.has(free); n++) free = `${id}-${String(n)}`;
      idOk = false;
      own.push(
        registryDiagnostic('import-id-taken', {
          message: ctx.takenIds.has(id)
            ? `the registry already defines a server '${id}'; import this one under another ID (--rename ${candidate.name}=${free}), leave it out (--only), or remove the existing one with \`codex-mmo tool-mcp remove ${id}\``
            : `${file} already exists; import under another ID (--rename ${candidate.name}=${free}) or remove that file`,
          ...where,
        }),
      );
    } else if (ids.has(id)) {
      idOk = false;
      own.push(
        registryDiagnostic('import-duplicate-id', {
          message: `server '${candidate.name}' would get the ID '${id}', which ${ids.get(id) ?? 'another server'} of this import already gets; give one of them another ID with --rename, or import one with --only`,
          ...where,
        }),
      );
    }
    if (idOk) ids.set(id, `server '${candidate.name}' at ${source.path}`);

    const settings = {
      approvalMode: candidate.approvalMode ?? ADDED_APPROVAL_MODE,
      ...(candidate.startupTimeoutSec !== undefined
        ? { startupTimeoutSec: candidate.startupTimeoutSec }
        : {}),
      ...(candidate.toolTimeoutSec !== undefined
        ? { toolTimeoutSec: candidate.toolTimeoutSec }
        : {}),
    };
    const tools =
      candidate.tools?.filter((t) => !(candidate.excludeTools ?? []).includes(t)) ?? undefined;
    const target = candidate.target;
    let preview: string | undefined;
    // an entry with errors gets no preview: it could show a secret the errors are about
    if (target !== undefined && idOk && !hasError(own)) {
      // the definition through the registry's own validator (with a stand-in tool when unknown)
      const draft = previewText(id, target, tools?.length ? tools : ['tool'], settings, []);
      const checked = validateFragment({ file, bytes: new TextEncoder().encode(draft) });
      own.push(...unpositioned(checked.diagnostics).map((d) => ({ ...d, server: id })));
      if (!hasError(own))
        preview = previewText(id, target, tools, settings, [
          `${ctx.origin}.`,
          `schema_version ${String(REGISTRY_SCHEMA_VERSION)} fragment for server '${candidate.name}' of ${source.file}.`,
        ]);
    }

    // secrets: moved (with --move-secrets) or named for the operator to set
    const move: MovedSecret[] = [];
    for (const secret of candidate.secrets) {
      const current = ctx.lookup(secret.name) ?? movedValues.get(secret.name);
      if (current === secret.value) continue;
      if (!ctx.moveSecrets) {
        own.push(
          registryDiagnostic('import-secret-not-moved', {
            message: `${secret.from} holds a literal secret; the fragment names the variable ${secret.name} instead. ${current !== undefined ? `${secret.name} is set, but to another value: check that it is the one the server needs` : `Set ${secret.name} in credentials.env, or run import again with --move-secrets to move the value there`}`,
            ...where,
          }),
        );
        continue;
      }
      if (current !== undefined) {
        own.push(
          registryDiagnostic('import-secret-conflict', {
            message: `--move-secrets would set ${secret.name} from ${secret.from}, but ${secret.name} already has another value (in the launch environment, credentials.env or another server of this import); nothing is overwritten. Import this server under another ID, or set ${secret.name} by hand`,
            ...where,
          }),
        );
        continue;
      }
      movedValues.set(secret.name, secret.value);
      move.push(secret);
    }
    const variables = target !== undefined ? [...new Set(referencedOf(target))] : [];
    const missing = variables.filter(
      (name) => ctx.lookup(name) === undefined && !move.some((m) => m.name === name),
    );
    // a server started to list its tools needs its variables now, not only at launch
    if (ctx.probe === true && target !== undefined && missing.length > 0) {
      const literal = missing.filter((name) => candidate.secrets.some((x) => x.name === name));
      own.push(
        registryDiagnostic('missing-env-var', {
          message: `server '${candidate.name}' is started to list its tools, and needs ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not set: set ${missing.length === 1 ? 'it' : 'them'} in credentials.env or the launch environment${literal.length > 0 ? `, or import with --move-secrets to move the source's value${literal.length === 1 ? '' : 's'} of ${literal.join(', ')} there` : ''}, or import with --no-probe`,
          ...where,
        }),
      );
    }
    return {
      name: candidate.name,
      id,
      source,
      file,
      ...(target !== undefined ? { target } : {}),
      ...(tools !== undefined ? { tools } : {}),
      ...(candidate.excludeTools !== undefined ? { excludeTools: candidate.excludeTools } : {}),
      ...settings,
      ...(preview !== undefined ? { preview } : {}),
      move,
      variables,
      missing,
      diagnostics: own,
      ok: target !== undefined && !hasError(own),
    };
  });
  if (selected.length === 0 && parsed.candidates.length > 0 && !hasError(diagnostics)) {
    diagnostics.push(
      diagnostic({
        code: 'import-only-unknown',
        message: '--only selects no server of the file',
        file: parsed.file,
      }),
    );
  }
  return {
    format: parsed.format,
    file: parsed.file,
    servers,
    diagnostics,
    ok: !hasError(diagnostics) && servers.length > 0 && servers.every((s) => s.ok),
  };
}
