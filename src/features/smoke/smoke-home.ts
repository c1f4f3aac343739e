/**
 * Homes for processes smoke starts on its own: the rendered configuration with the built-in
 * scripted model as model provider, Codex's ChatGPT apps connector off, and `mmo_mesh` left out.
 */
import { parse, stringify } from 'smol-toml';

import type { RenderedHome } from '../../config/compile/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import { scriptedProviderConfig } from '../../runtime/codex/scripted-model.js';
import { MESH_SERVER_NAME } from '../../runtime/protocol/mesh-protocol.js';

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `table` with the scripted model as its model provider (other providers are kept), and Codex's
 * built-in ChatGPT apps connector off: it is no Tool MCP server, and it would reach the network.
 */
export function withScriptedProvider(table: TomlTable, baseUrl: string): TomlTable {
  const provider = scriptedProviderConfig(baseUrl);
  const providers = isTable(table.model_providers) ? table.model_providers : {};
  const features = isTable(table.features) ? table.features : {};
  return {
    ...table,
    ...provider,
    model_providers: { ...providers, ...(provider.model_providers as TomlTable) },
    features: { ...features, apps: false },
  };
}

/**
 * Adapts a rendered home for a process started on its own: the scripted model becomes the model
 * provider, and `mmo_mesh` is left out (no session broker knows the process).
 */
export function smokeHome(rendered: RenderedHome, baseUrl: string): RenderedHome {
  const files = new Map<string, string>();
  for (const [path, text] of rendered.files) {
    let table = parse(text) as TomlTable;
    if (isTable(table.mcp_servers)) {
      table.mcp_servers = Object.fromEntries(
        Object.entries(table.mcp_servers).filter(([id]) => id !== MESH_SERVER_NAME),
      );
    }
    if (path === 'config.toml') table = withScriptedProvider(table, baseUrl);
    files.set(path, stringify(table));
  }
  return { process: rendered.process, files };
}
