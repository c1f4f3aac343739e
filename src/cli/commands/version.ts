/**
 * `codex-mmo --version [--json]`: the codex-mmo version and the Codex a session would use
 * (`--codex-bin`, `$CODEX_MMO_CODEX_BIN` or `codex` on PATH), with whether that Codex version is
 * one of the supported versions.
 */
import { VERSION } from '../../foundation/index.js';
import { codexInUse } from '../../runtime/codex/index.js';
import { supportedSeriesText } from '../../config/codex/index.js';
import { parseCommand, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo --version [--json] [--codex-bin PATH]

Print the codex-mmo version and the Codex binary sessions would use, its version and whether
that version is supported (${supportedSeriesText()}). JSON: {"version", "codex": {"path",
"version", "supported"}}; path and version are null when Codex cannot be found or run.
Exit status: 0.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 0 });
  if (cmd.help) return printHelp(io, USAGE);
  const { detection, supported } = await codexInUse(cmd.dirs.codexBin, io.env, io.cwd);
  const path = detection.kind === 'not-found' ? null : detection.path;
  const version = detection.kind === 'found' ? detection.version : null;
  if (cmd.json) {
    printJson(io, {
      version: VERSION,
      codex: {
        path,
        version,
        supported,
        ...(detection.kind !== 'found' ? { error: detection.reason } : {}),
      },
    });
    return EXIT_OK;
  }
  const codex =
    detection.kind === 'found'
      ? `${detection.path} (version ${detection.version}, ${supported ? 'supported' : `untested: supported are ${supportedSeriesText()}`})`
      : `${detection.kind === 'failed' ? detection.path : 'not found'} (${detection.reason})`;
  io.stdout(`codex-mmo ${VERSION}\ncodex: ${codex}\n`);
  return EXIT_OK;
}
