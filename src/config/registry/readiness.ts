/**
 * Readiness of one registry entry, checked without launching anything: the stdio command resolves
 * to an executable file (bare names through the PATH of the given environment), `cwd` is an
 * existing directory, and every referenced environment variable is present in the launch
 * environment or credentials.env. Reports presence and origin only, never a value.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { expandTilde, type Environment } from '../../foundation/paths/directories.js';
import type { KeyPath } from '../../foundation/toml/key-positions.js';
import type { CredentialSource, VariablePresence } from './credentials-types.js';
import { registryDiagnostic } from './diagnostic-codes.js';
import { entryLocation } from './entry-location.js';
import type { RegistryEntry, ServerDefinition } from './types.js';

export interface ReadinessContext {
  /** The launch environment: its PATH resolves bare commands; its variables win over the file. */
  readonly env: Environment;
  /** Home directory for `~/` paths. */
  readonly home: string;
  readonly credentials: CredentialSource;
  /**
   * Where commands were found during this check (bare name → location), shared by the entries of
   * one validation so a command many servers use is searched on PATH once.
   */
  readonly commandCache?: Map<string, Promise<CommandLocation>>;
}

export interface Readiness {
  readonly server: string;
  /** No error among `diagnostics`. */
  readonly ok: boolean;
  /** Stdio only: the command as written and the executable it resolves to, if any. */
  readonly command?: { readonly name: string; readonly resolved?: string };
  /** Stdio with `cwd` only: the expanded path and whether it is an existing directory. */
  readonly cwd?: { readonly path: string; readonly exists: boolean };
  /** Every referenced variable, once each, in the order the definition names them. */
  readonly variables: VariablePresence[];
  readonly diagnostics: Diagnostic[];
}

export type CommandLocation =
  | { readonly kind: 'found'; readonly path: string }
  | { readonly kind: 'not-executable'; readonly path: string; readonly reason: string }
  | { readonly kind: 'not-found'; readonly reason: string };

interface FileCheck {
  readonly exists: boolean;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly executable: boolean;
}

async function checkFile(path: string): Promise<FileCheck> {
  let stats;
  try {
    stats = await stat(path);
  } catch {
    return { exists: false, isFile: false, isDirectory: false, executable: false };
  }
  if (!stats.isFile()) {
    return { exists: true, isFile: false, isDirectory: stats.isDirectory(), executable: false };
  }
  let executable = true;
  try {
    await access(path, constants.X_OK);
  } catch {
    executable = false;
  }
  return { exists: true, isFile: true, isDirectory: false, executable };
}

/**
 * Finds the executable a stdio `command` names: a bare name is searched in the absolute entries
 * of `env.PATH` (first executable regular file wins); `~/` and absolute paths are checked as they
 * are. Nothing is executed.
 */
export async function locateCommand(
  command: string,
  env: Environment,
  home: string,
): Promise<CommandLocation> {
  if (command === '') return { kind: 'not-found', reason: 'the command is empty' };
  if (!command.includes('/')) {
    const path = env.PATH;
    if (path === undefined || path === '') {
      return { kind: 'not-found', reason: 'PATH is not set in the launch environment' };
    }
    let nonExecutable: string | undefined;
    for (const dir of path.split(delimiter)) {
      if (dir === '' || !isAbsolute(dir)) continue;
      const candidate = join(dir, command);
      const check = await checkFile(candidate);
      if (check.isFile && check.executable) return { kind: 'found', path: candidate };
      if (check.isFile && nonExecutable === undefined) nonExecutable = candidate;
    }
    if (nonExecutable !== undefined) {
      return {
        kind: 'not-executable',
        path: nonExecutable,
        reason: 'it is found on PATH but is not executable',
      };
    }
    return { kind: 'not-found', reason: 'it is not on PATH' };
  }
  const expanded = expandTilde(command, home);
  if (!isAbsolute(expanded)) {
    return { kind: 'not-found', reason: 'a relative path is not allowed' };
  }
  const check = await checkFile(expanded);
  if (!check.exists) return { kind: 'not-found', reason: 'no such file' };
  if (!check.isFile) {
    return {
      kind: 'not-executable',
      path: expanded,
      reason: check.isDirectory ? 'it is a directory' : 'it is not a regular file',
    };
  }
  if (!check.executable) {
    return { kind: 'not-executable', path: expanded, reason: 'it has no execute permission' };
  }
  return { kind: 'found', path: expanded };
}

/** The executable path `command` resolves to, or undefined when it does not resolve. */
export async function resolveCommand(
  command: string,
  env: Environment,
  home: string,
): Promise<string | undefined> {
  const location = await locateCommand(command, env, home);
  return location.kind === 'found' ? location.path : undefined;
}

/** Every variable reference of a definition with the key path (below the server table) naming it. */
export function variableReferences(
  definition: ServerDefinition,
): { readonly name: string; readonly key: KeyPath }[] {
  const refs: { name: string; key: KeyPath }[] = [];
  if (definition.transport === 'stdio') {
    (definition.env_vars ?? []).forEach((name, index) => {
      refs.push({ name, key: ['env_vars', index] });
    });
  } else {
    if (definition.bearer_token_env_var !== undefined) {
      refs.push({ name: definition.bearer_token_env_var, key: ['bearer_token_env_var'] });
    }
    for (const [header, name] of Object.entries(definition.env_http_headers ?? {})) {
      refs.push({ name, key: ['env_http_headers', header] });
    }
  }
  return refs;
}

/** Checks one entry's readiness. Never launches the server and never reads a variable's value out. */
export async function checkReadiness(
  entry: RegistryEntry,
  ctx: ReadinessContext,
): Promise<Readiness> {
  const definition = entry.definition;
  const server = definition.id;
  const diagnostics: Diagnostic[] = [];
  let command: Readiness['command'];
  let cwd: Readiness['cwd'];

  if (definition.transport === 'stdio') {
    const cache = ctx.commandCache;
    let pending = cache?.get(definition.command);
    if (pending === undefined) {
      pending = locateCommand(definition.command, ctx.env, ctx.home);
      cache?.set(definition.command, pending);
    }
    const location = await pending;
    if (location.kind === 'found') {
      command = { name: definition.command, resolved: location.path };
    } else {
      command = { name: definition.command };
      diagnostics.push(
        location.kind === 'not-found'
          ? registryDiagnostic('command-not-found', {
              message: `command '${definition.command}' of server '${server}' cannot be found (${location.reason}); install it, put its directory on PATH, or set command to its absolute path`,
              server,
              ...entryLocation(entry, ['command']),
            })
          : registryDiagnostic('command-not-executable', {
              message: `command '${definition.command}' of server '${server}' resolves to ${location.path}, but ${location.reason}; point command at the executable file or run \`chmod +x\` on it`,
              server,
              ...entryLocation(entry, ['command']),
            }),
      );
    }
    if (definition.cwd !== undefined) {
      const path = expandTilde(definition.cwd, ctx.home);
      const check = await checkFile(path);
      cwd = { path, exists: check.isDirectory };
      if (!check.exists) {
        diagnostics.push(
          registryDiagnostic('cwd-not-found', {
            message: `working directory ${path} of server '${server}' does not exist; create it or change cwd`,
            server,
            ...entryLocation(entry, ['cwd']),
          }),
        );
      } else if (!check.isDirectory) {
        diagnostics.push(
          registryDiagnostic('cwd-not-a-directory', {
            message: `working directory ${path} of server '${server}' is not a directory; set cwd to a directory`,
            server,
            ...entryLocation(entry, ['cwd']),
          }),
        );
      }
    }
  }

  const variables: VariablePresence[] = [];
  const seen = new Set<string>();
  for (const ref of variableReferences(definition)) {
    if (seen.has(ref.name)) continue;
    seen.add(ref.name);
    const found = ctx.credentials.lookup(ref.name);
    if (found) {
      variables.push({ name: ref.name, present: true, origin: found.origin });
    } else {
      variables.push({ name: ref.name, present: false });
      diagnostics.push(
        registryDiagnostic('missing-env-var', {
          message: `server '${server}' needs environment variable ${ref.name}, which is not set; add a ${ref.name}= line to ${ctx.credentials.file} or export it in the launch environment`,
          server,
          ...entryLocation(entry, ref.key),
        }),
      );
    }
  }

  return {
    server,
    ok: !diagnostics.some((d) => d.severity === 'error'),
    ...(command !== undefined ? { command } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    variables,
    diagnostics,
  };
}
