/**
 * `importServers`: brings the MCP servers of a Codex `config.toml`, a Claude Code MCP file or a
 * `server.json` into the registry. The plan (`import-plan.ts`) must be free of errors for anything
 * to be written; then each server is probed, written and pinned as `tool-mcp add` does (or, with
 * no probe, written with the source's tool list), and moved secrets go to credentials.env.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

import { hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { configFiles } from '../../foundation/paths/directories.js';
import { decodeUtf8 } from '../../foundation/toml/parse-toml.js';
import { knownCredentials } from '../../config/registry/credential-literals.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import { registryDiagnostic } from '../../config/registry/diagnostic-codes.js';
import { loadRegistry } from '../../config/registry/load-registry.js';
import { readConfigFile } from '../../config/registry/read-config-file.js';
import type { ServerDefinition } from '../../config/registry/types.js';
import { validateFragment } from '../../config/registry/validate-fragment.js';
import { writeNewFragment } from '../../config/registry/write-fragment.js';
import { addedFragmentFile, addServer, type AddContext } from './add-server.js';
import { appendCredentials } from './credentials-append.js';
import { commentText } from './fragment-text.js';
import {
  detectFormat,
  parseImportFile,
  planImport,
  previewText,
  type PlannedServer,
} from './import-plan.js';
import type { ImportFormat } from './import-types.js';

/** The largest file import reads (a `~/.claude.json` also holds a history). */
export const MAX_IMPORT_FILE_BYTES = 32 * 1024 * 1024;

export interface ImportRequest {
  readonly file: string;
  /** The file's format (default: detected from its name and content). */
  readonly from?: ImportFormat;
  readonly only?: readonly string[];
  readonly rename?: Readonly<Record<string, string>>;
  /** Show what would be written; write nothing, start nothing. */
  readonly dryRun?: boolean;
  /** Write literal secrets of the source into credentials.env. */
  readonly moveSecrets?: boolean;
  /** Start each server to list and pin its tools (default true). */
  readonly probe?: boolean;
}

export type ImportStatus = 'imported' | 'would-import' | 'refused' | 'not-imported';

export interface ImportedServer {
  readonly name: string;
  readonly id: string;
  readonly status: ImportStatus;
  /** The fragment file written (or that would be). */
  readonly file: string;
  readonly source: PlannedServer['source'];
  /** The fragment text written, or the preview of a dry run. */
  readonly text?: string;
  readonly definition?: ServerDefinition;
  /** Variables the fragment names. */
  readonly variables: readonly string[];
  /** Variables the operator must still set (in credentials.env or the launch environment). */
  readonly missing: readonly string[];
  /** Variables whose values this import moved (or, in a dry run, would move). */
  readonly moved: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

export interface ImportResult {
  readonly ok: boolean;
  readonly file: string;
  readonly format?: ImportFormat;
  readonly dryRun: boolean;
  readonly credentialsFile: string;
  readonly servers: readonly ImportedServer[];
  /** Problems of the file or the options as a whole. */
  readonly diagnostics: readonly Diagnostic[];
  /** Every secret value the source held: for the caller to mask output with. */
  readonly secretValues: readonly string[];
}

/** The launch environment and credentials.env, plus the values this import moves. */
function withMoved(source: CredentialSource, moved: ReadonlyMap<string, string>): CredentialSource {
  return {
    ...source,
    lookup(name) {
      const found = source.lookup(name);
      if (found !== undefined) return found;
      const value = moved.get(name);
      return value !== undefined ? { origin: 'credentials.env', value } : undefined;
    },
    secretValues: () => [...source.secretValues(), ...moved.values()],
  };
}

async function readSource(file: string): Promise<{ text: string } | { diagnostics: Diagnostic[] }> {
  const read = await readConfigFile(file, MAX_IMPORT_FILE_BYTES);
  const refuse = (message: string) => ({
    diagnostics: [registryDiagnostic('import-file-unreadable', { message, file })],
  });
  switch (read.kind) {
    case 'missing':
      return refuse('there is no such file; give the path of the configuration to import');
    case 'not-a-file':
      return refuse(`this is ${read.what}, not a regular file`);
    case 'too-large':
      return refuse(`the file is larger than ${String(read.limit)} bytes`);
    case 'unreadable':
      return refuse(`cannot read the file (${read.reason})`);
    case 'ok': {
      const decoded = decodeUtf8(read.bytes, file);
      if (!decoded.ok) return { diagnostics: decoded.diagnostics };
      return { text: decoded.text };
    }
  }
}

/** Writes one planned server without starting it: only with the source's own tool list. */
async function writeUnprobed(planned: PlannedServer, origin: string): Promise<ImportedServer> {
  const base = { ...summary(planned), moved: planned.move.map((m) => m.name) };
  if (planned.target === undefined || planned.tools === undefined || planned.tools.length === 0) {
    return {
      ...base,
      status: 'refused',
      moved: [],
      diagnostics: [
        ...planned.diagnostics,
        registryDiagnostic('import-tools-unknown', {
          message: `the source lists no tools for server '${planned.name}', and with --no-probe nothing can: run import without --no-probe to start the server and list its tools`,
          file: planned.source.file,
          path: planned.source.path,
          server: planned.id,
        }),
      ],
    };
  }
  const text = previewText(planned.id, planned.target, planned.tools, planned, [
    `${origin} on ${new Date().toISOString().slice(0, 10)}, not probed: run \`codex-mmo tool-mcp pin ${planned.id}\` once you have reviewed it.`,
  ]);
  const checked = validateFragment({ file: planned.file, bytes: new TextEncoder().encode(text) });
  const definition = checked.servers[0]?.definition;
  if (hasErrors(checked.diagnostics) || definition === undefined) {
    return {
      ...base,
      status: 'refused',
      moved: [],
      diagnostics: [...planned.diagnostics, ...checked.diagnostics],
    };
  }
  const written = await writeNewFragment(planned.file, text);
  if (written.kind === 'exists') {
    return {
      ...base,
      status: 'refused',
      moved: [],
      diagnostics: [
        ...planned.diagnostics,
        registryDiagnostic('import-id-taken', {
          message: `${planned.file} appeared while importing; nothing was written for server '${planned.name}'`,
          file: planned.file,
          server: planned.id,
        }),
      ],
    };
  }
  return { ...base, status: 'imported', text, definition, diagnostics: planned.diagnostics };
}

function summary(planned: PlannedServer) {
  return {
    name: planned.name,
    id: planned.id,
    file: planned.file,
    source: planned.source,
    variables: planned.variables,
    missing: planned.missing,
  };
}

export async function importServers(
  request: ImportRequest,
  ctx: AddContext,
): Promise<ImportResult> {
  const file = resolve(ctx.cwd, request.file);
  const credentialsFile = configFiles(ctx.configDir).credentials;
  const dryRun = request.dryRun === true;
  const failed = (diagnostics: Diagnostic[], format?: ImportFormat): ImportResult => ({
    ok: false,
    file,
    ...(format !== undefined ? { format } : {}),
    dryRun,
    credentialsFile,
    servers: [],
    diagnostics,
    secretValues: [],
  });
  const read = await readSource(file);
  if ('diagnostics' in read) return failed(read.diagnostics);
  const format = request.from ?? detectFormat(file, read.text);
  if (format === undefined) {
    return failed([
      registryDiagnostic('import-format-unknown', {
        message:
          'cannot tell what kind of file this is (a Codex config.toml has [mcp_servers.NAME] tables, a Claude Code file "mcpServers", a server.json "$schema" and "packages" or "remotes"); say which with --from codex|claude|server-json',
        file,
      }),
    ]);
  }
  const parsed = parseImportFile(format, read.text, file, knownCredentials(ctx.credentials, []));
  const registry = await loadRegistry(ctx.configDir);
  const origin = `Imported by \`codex-mmo tool-mcp import\` from ${commentText(file, 120)}`;
  const plan = planImport(parsed, {
    takenIds: new Set(registry.statuses.map((s) => s.id)),
    fragmentFile: (id) => addedFragmentFile(ctx.configDir, id),
    fileExists: (path) => registry.files.includes(path) || existsSync(path),
    lookup: (name) => ctx.credentials.lookup(name)?.value,
    ...(request.only !== undefined ? { only: request.only } : {}),
    ...(request.rename !== undefined ? { rename: request.rename } : {}),
    moveSecrets: request.moveSecrets === true,
    probe: request.probe !== false,
    origin,
  });
  const secretValues = parsed.candidates.flatMap((c) => c.secrets.map((s) => s.value));
  const result = (servers: ImportedServer[], diagnostics: Diagnostic[] = []): ImportResult => ({
    ok:
      plan.ok &&
      !hasErrors(diagnostics) &&
      servers.every((s) => s.status === 'imported' || s.status === 'would-import'),
    file,
    format,
    dryRun,
    credentialsFile,
    servers,
    diagnostics: [...plan.diagnostics, ...diagnostics],
    secretValues,
  });

  if (!plan.ok || dryRun) {
    return result(
      plan.servers.map((planned) => ({
        ...summary(planned),
        status: !planned.ok ? 'refused' : plan.ok ? 'would-import' : 'not-imported',
        ...(planned.preview !== undefined ? { text: planned.preview } : {}),
        // nothing is written: only a dry run names what it would move
        moved: dryRun ? planned.move.map((m) => m.name) : [],
        diagnostics: planned.diagnostics,
      })),
    );
  }

  const moved = new Map<string, string>();
  for (const planned of plan.servers) for (const m of planned.move) moved.set(m.name, m.value);
  const credentials = withMoved(ctx.credentials, moved);
  const servers: ImportedServer[] = [];
  for (const planned of plan.servers) {
    if (request.probe === false) {
      servers.push(await writeUnprobed(planned, origin));
      continue;
    }
    if (planned.target === undefined) continue;
    const added = await addServer(
      {
        id: planned.id,
        target: planned.target,
        ...(planned.tools !== undefined ? { tools: planned.tools } : {}),
        ...(planned.excludeTools !== undefined ? { excludeTools: planned.excludeTools } : {}),
        approvalMode: planned.approvalMode,
        ...(planned.startupTimeoutSec !== undefined
          ? { startupTimeoutSec: planned.startupTimeoutSec }
          : {}),
        ...(planned.toolTimeoutSec !== undefined ? { toolTimeoutSec: planned.toolTimeoutSec } : {}),
        origin,
      },
      { ...ctx, credentials },
    );
    servers.push({
      ...summary(planned),
      status: added.ok ? 'imported' : 'refused',
      ...(added.text !== undefined ? { text: added.text } : {}),
      ...(added.definition !== undefined ? { definition: added.definition } : {}),
      moved: added.ok ? planned.move.map((m) => m.name) : [],
      diagnostics: [...planned.diagnostics, ...added.diagnostics],
    });
  }

  // the secrets of the servers written go to credentials.env; the others stay where they were
  const diagnostics: Diagnostic[] = [];
  const toWrite = new Map<string, string>();
  for (const server of servers) {
    if (server.status !== 'imported') continue;
    for (const name of server.moved) {
      const value = moved.get(name);
      if (value !== undefined) toWrite.set(name, value);
    }
  }
  if (toWrite.size > 0) {
    const date = new Date().toISOString().slice(0, 10);
    try {
      const done = await appendCredentials(
        credentialsFile,
        toWrite,
        commentText(`moved by codex-mmo tool-mcp import from ${file} on ${date}`, 200),
      );
      for (const name of done.written) {
        diagnostics.push(
          registryDiagnostic('import-secret-moved', {
            message: `the literal value of ${name} was moved to credentials.env (it is in no fragment, and never shown)`,
            file: credentialsFile,
            path: name,
          }),
        );
      }
      for (const name of done.unwritable) {
        diagnostics.push(
          registryDiagnostic('import-secret-conflict', {
            message: `the value of ${name} holds every dotenv quote character (or a NUL), so it was not written to credentials.env; add ${name} there by hand`,
            file: credentialsFile,
            path: name,
          }),
        );
      }
    } catch (error) {
      diagnostics.push(
        registryDiagnostic('import-secret-conflict', {
          message: `the moved variables (${[...toWrite.keys()].join(', ')}) could not be written to credentials.env (${error instanceof Error ? error.message : String(error)}); set them there by hand`,
          file: credentialsFile,
        }),
      );
    }
  }
  return result(servers, diagnostics);
}
