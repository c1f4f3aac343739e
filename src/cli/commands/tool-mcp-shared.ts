/**
 * Pieces shared by the `tool-mcp` commands that take a server ID (`show`, `probe`, `pin`): looking
 * the ID up and explaining why it cannot be used, and, for the live checks, the credentials,
 * launch context and output that masks every credential value the server could be given.
 * Not a command itself.
 */
import {
  configFiles,
  type Diagnostic,
  loadCredentials,
  loadRegistry,
  maskSecrets,
  type Registry,
  type RegistryEntry,
} from '../../index.js';
import { planLaunch, type LaunchContext } from '../../runtime/upstream/index.js';
import { type ServerStatus, lookupServer } from '../../config/registry/index.js';
import { parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, type CliIo } from '../io.js';

/**
 * The valid registry entry of `id`, or undefined after reporting why there is none: an unknown
 * ID (with a did-you-mean and any load problem that may explain it), or the errors of its
 * invalid definition. `document` builds the command's JSON document from those diagnostics (and
 * the status of an invalid definition); `action`
 * completes "fix the errors above before …" in text output.
 */
export function serverOrReport(
  io: CliIo,
  registry: Registry,
  id: string,
  output: {
    readonly json: boolean;
    readonly document: (diagnostics: Diagnostic[], status?: ServerStatus) => unknown;
    readonly action: string;
  },
): RegistryEntry | undefined {
  const lookup = lookupServer(registry, id);
  if (lookup.entry !== undefined) return lookup.entry;
  if (output.json) {
    printJson(io, output.document(lookup.diagnostics, lookup.status));
    return undefined;
  }
  printDiagnostics(io, lookup.diagnostics);
  if (lookup.status !== undefined) {
    io.stderr(
      `codex-mmo: the definition of '${id}' in ${lookup.status.file} is invalid; fix the errors above before ${output.action}\n`,
    );
  }
  return undefined;
}

export interface LiveCheck {
  /** Environment, home, cwd and credentials to launch the server with. */
  readonly ctx: LaunchContext;
  /** Every credential value the server could be given; masked in all output. */
  readonly secrets: readonly string[];
  /** `io` with every secret masked in stdout and stderr text. */
  readonly out: CliIo;
  /** Problems reading credentials.env. */
  readonly diagnostics: readonly Diagnostic[];
}

/** What `startLiveCheck` hands a probe or pin: the server's entry, its registry and launch. */
export interface LiveCheckStart {
  readonly json: boolean;
  readonly id: string;
  readonly configDir: string;
  /** The Codex binary `--codex-bin`, `$CODEX_MMO_CODEX_BIN` or PATH names. */
  readonly codexBin: string;
  readonly registry: Registry;
  readonly entry: RegistryEntry;
  readonly live: LiveCheck;
}

/**
 * The common start of `probe ID` and `pin ID`: parses the arguments, loads the registry, finds
 * the server (reporting why it cannot be used) and prepares its launch. Returns the exit code
 * when the command is already done (`--help`, or no usable server).
 */
export async function startLiveCheck(
  args: readonly string[],
  io: CliIo,
  command: {
    readonly usage: string;
    readonly action: string;
    readonly failure: (id: string, diagnostics: Diagnostic[]) => unknown;
  },
): Promise<LiveCheckStart | number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1, names: ['ID'] });
  if (cmd.help) return printHelp(io, command.usage);
  const id = cmd.positionals[0] ?? '';
  const configDir = cmd.dirs.configDir;
  const registry = await loadRegistry(configDir);
  const entry = serverOrReport(io, registry, id, {
    json: cmd.json,
    document: (diagnostics) => command.failure(id, diagnostics),
    action: command.action,
  });
  if (!entry) return EXIT_FAILURE;
  const live = await prepareLiveCheck(io, configDir, entry);
  return { json: cmd.json, id, configDir, codexBin: cmd.dirs.codexBin, registry, entry, live };
}

/** Loads credentials and prepares a probe or pin of `entry`: its launch context and masked output. */
export async function prepareLiveCheck(
  io: CliIo,
  configDir: string,
  entry: RegistryEntry,
): Promise<LiveCheck> {
  const credentials = await loadCredentials(configFiles(configDir).credentials, io.env);
  const ctx: LaunchContext = {
    env: io.env,
    home: io.home,
    cwd: io.cwd,
    credentials: credentials.source,
  };
  const secrets = planLaunch(entry.definition, ctx).secrets;
  const out: CliIo = {
    ...io,
    stdout: (text) => {
      io.stdout(maskSecrets(text, secrets));
    },
    stderr: (text) => {
      io.stderr(maskSecrets(text, secrets));
    },
  };
  return { ctx, secrets, out, diagnostics: credentials.diagnostics };
}
