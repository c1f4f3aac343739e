/**
 * Cutting one server out of a fragment's text (pure): its tables and the comments above them
 * go, everything else stays byte for byte; other forms are re-rendered from the data.
 */
import { describe, expect, it } from 'vitest';

import { removeEntryText } from '../../../src/features/onboard/remove-entry-text.js';

const TEXT = `# operator notes
schema_version = 8

# the first server
[tool_mcp_servers.a]
transport = "stdio"
command = "a"
enabled_tools = ["x"]
default_tools_approval_mode = "prompt"

[tool_mcp_servers.a.tools.x]
approval_mode = "approve"

# the second server
[tool_mcp_servers.b]
transport = "stdio"
command = "b" # inline comment
enabled_tools = ["y"]
default_tools_approval_mode = "prompt"
`;

describe('removeEntryText', () => {
  it('cuts out the entry and its sub-tables, keeping the rest as written', () => {
    const out = removeEntryText(TEXT, 'a');
    expect(out).toEqual({
      text: `# operator notes
schema_version = 8

# the second server
[tool_mcp_servers.b]
transport = "stdio"
command = "b" # inline comment
enabled_tools = ["y"]
default_tools_approval_mode = "prompt"
`,
      empty: false,
      rewritten: false,
    });
    expect(removeEntryText(TEXT, 'b')?.text).not.toContain('tool_mcp_servers.b');
    expect(removeEntryText(TEXT, 'b')?.text).toContain('approval_mode = "approve"');
  });

  it('says when no server is left, and re-renders other forms', () => {
    const single = 'schema_version = 8\n[tool_mcp_servers."a"]\ntransport = "stdio"\n';
    expect(removeEntryText(single, 'a')?.empty).toBe(true);
    const dotted =
      'schema_version = 8\n[tool_mcp_servers]\na.transport = "stdio"\nb = { transport = "stdio" }\n';
    const out = removeEntryText(dotted, 'a');
    expect(out?.rewritten).toBe(true);
    expect(out?.text).toContain('transport = "stdio"');
    expect(out?.text).not.toMatch(/\ba\b/);
    expect(removeEntryText('not = [toml', 'a')).toBeUndefined();
  });
});
