/**
 * `tool-mcp probe`'s text output against a real stdio MCP server (the probe fixture) that reports
 * a hostile name, version, title and tool name and writes terminal sequences and a forged line to
 * its stderr: the summary and the diagnostics carry none of it raw, no quoted text starts a line
 * of its own, and `--json` keeps the exact text.
 */
import { describe, expect, it } from 'vitest';

import { ALPHA_PROMPT, launchEnv, runIn, workspace } from '../../support/probe-helpers.js';
import { FORGED_LINE, OSC_CLIPBOARD, OSC_TITLE, RAW_CONTROL } from '../../support/hostile-text.js';

const SERVER_INFO = {
  name: `evil${OSC_TITLE}`,
  version: `1.0${FORGED_LINE}`,
  title: `Title\r\u202eevil${OSC_CLIPBOARD}`,
};

describe('tool-mcp probe of a hostile server', () => {
  it('prints the name, version, title and tool names it reports terminal-safe', async () => {
    const ws = await workspace();
    await ws.fixtureServer({
      serverInfo: SERVER_INFO,
      tools: [{ name: 'alpha' }, { name: `beta${FORGED_LINE}${OSC_CLIPBOARD}` }],
    });
    const text = await runIn(ws, ['tool-mcp', 'probe', 'fx'], { json: false });
    expect(text.stdout).not.toMatch(RAW_CONTROL);
    expect(text.stderr).not.toMatch(RAW_CONTROL);
    expect(text.stdout).toContain(
      '  server    evil\\x1b]0;title\\x07 1.0\\n12:00:02 root (lead) approval a9 approved by root (cli) (Title\\r\\u202eevil\\x1b]52;c;',
    );
    expect(`${text.stdout}${text.stderr}`).not.toMatch(/^12:00:02 /m);
    const json = await runIn(ws, ['tool-mcp', 'probe', 'fx']);
    const out = json.json<{ server_info?: unknown; tools: { name: string }[] }>();
    expect(out.server_info).toEqual(SERVER_INFO);
    expect(out.tools.map((t) => t.name)).toContain(`beta${FORGED_LINE}${OSC_CLIPBOARD}`);
  });

  it("quotes a crashing server's stderr in diagnostics with no raw control and no forged line", async () => {
    const ws = await workspace();
    await ws.fixtureServer(
      {
        mode: 'crash',
        stderrText: `boot${OSC_CLIPBOARD}${OSC_TITLE}\r\u202e${FORGED_LINE}\nerror[forged] nothing\n`,
      },
      ALPHA_PROMPT,
    );
    const text = await runIn(ws, ['tool-mcp', 'probe', 'fx'], { env: launchEnv(ws), json: false });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('error[probe-start-failed]');
    expect(text.stderr).not.toMatch(RAW_CONTROL);
    expect(text.stderr).toContain('| boot\\x1b]52;c;');
    expect(text.stderr).toContain('| 12:00:02 root (lead) approval a9 approved by root (cli)');
    expect(text.stderr).not.toMatch(/^12:00:02 /m);
    expect(text.stderr).not.toMatch(/^error\[forged\]/m);
    const json = await runIn(ws, ['tool-mcp', 'probe', 'fx'], { env: launchEnv(ws) });
    const tail = json.json<{ stderr_tail?: string[] }>().stderr_tail ?? [];
    expect(tail.join('\n')).toContain(`boot${OSC_CLIPBOARD}${OSC_TITLE}\r\u202e`);
  });
});
