/**
 * `codex-mmo tool-mcp schema`: prints the JSON Schema (draft 2020-12) of a registry fragment, so
 * an editor can complete and check `tool-mcp.d/*.toml` files.
 */
import { fragmentJsonSchema, REGISTRY_SCHEMA_VERSION } from '../../index.js';
import { parseCommand, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp schema [--json]

Print the JSON Schema (draft 2020-12) of a Tool MCP registry fragment (schema_version ${REGISTRY_SCHEMA_VERSION}). Point
your editor's TOML language server at it to complete and check tool-mcp.d/*.toml files, e.g.
  codex-mmo tool-mcp schema > ~/.config/codex-mmo/tool-mcp.schema.json
The output is JSON with or without --json.`;

export function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 0 });
  if (cmd.help) return Promise.resolve(printHelp(io, USAGE));
  printJson(io, fragmentJsonSchema());
  return Promise.resolve(EXIT_OK);
}
