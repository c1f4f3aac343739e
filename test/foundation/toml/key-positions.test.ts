import { describe, expect, it } from 'vitest';

import { formatKeyPath } from '../../../src/foundation/toml/key-positions.js';
import { parseTomlText } from '../../../src/foundation/toml/parse-toml.js';

const doc = `schema_version = 8

[tool_mcp_servers.firecrawl]
transport = "streamable_http" # comment with = and [
url = "https://mcp.example.invalid/"
enabled_tools = ["search",
   "scrape"]
env = { A = "b", "Quoted.Key" = { x = 1 } }
"x.y".z = """
multi ] [ = 
"""
after = 1
[tool_mcp_servers.firecrawl.tools.scrape]
approval_mode = "prompt"
[[arr]]
a = 1
[[arr]]
a = 2
`;

describe('scanKeyPositions', () => {
  const parsed = parseTomlText(doc, 'f.toml');
  if (!parsed.ok) throw new Error('fixture must parse');
  const at = (path: (string | number)[]) => parsed.positions.lookup(path);

  it('finds top-level keys and table headers', () => {
    expect(at(['schema_version'])).toEqual({ line: 1, column: 1 });
    expect(at(['tool_mcp_servers', 'firecrawl'])).toEqual({ line: 3, column: 19 });
  });
  it('finds keys after comments, inside multi-line arrays and inline tables', () => {
    expect(at(['tool_mcp_servers', 'firecrawl', 'url'])).toEqual({ line: 5, column: 1 });
    expect(at(['tool_mcp_servers', 'firecrawl', 'enabled_tools', 1])).toEqual({
      line: 7,
      column: 4,
    });
    expect(at(['tool_mcp_servers', 'firecrawl', 'env', 'Quoted.Key', 'x'])).toEqual({
      line: 8,
      column: 35,
    });
  });
  it('skips multi-line strings that contain brackets', () => {
    expect(at(['tool_mcp_servers', 'firecrawl', 'x.y', 'z'])).toEqual({ line: 9, column: 7 });
    expect(at(['tool_mcp_servers', 'firecrawl', 'after'])).toEqual({ line: 12, column: 1 });
  });
  it('numbers arrays of tables and falls back to the nearest known parent', () => {
    expect(at(['arr', 1, 'a'])).toEqual({ line: 18, column: 1 });
    expect(at(['tool_mcp_servers', 'firecrawl', 'tools', 'scrape', 'nope'])).toEqual({
      line: 13,
      column: 35,
    });
  });
  it('formats key paths with quoting and indexes', () => {
    expect(formatKeyPath(['a', 'b.c', 'd', 2])).toBe('a."b.c".d[2]');
  });
});
