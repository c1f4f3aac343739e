import { describe, expect, it } from 'vitest';

import {
  ProcessGroupTransport,
  STDERR_KEEP_BYTES,
  processGroupAlive,
} from '../../../src/runtime/probe/process-group-transport.js';

function node(script: string): ProcessGroupTransport {
  return new ProcessGroupTransport({
    command: process.execPath,
    args: ['-e', script],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '' },
    graceMs: 300,
  });
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ProcessGroupTransport', () => {
  it('frames JSON-RPC split across writes, handles CRLF, and sets non-JSON lines aside', async () => {
    const transport = node(`
      process.stdout.write('{"jsonrpc":"2.0","method":"notifications/one"');
      setTimeout(() => process.stdout.write('}\\r\\nnot json\\n\\n{"jsonrpc":"2.0","method":"notifications/two"}\\n'), 50);
      setInterval(() => {}, 1000);
    `);
    const methods: string[] = [];
    transport.onmessage = (message) => {
      methods.push((message as { method: string }).method);
    };
    await transport.start();
    await until(() => methods.length === 2);
    expect(methods).toEqual(['notifications/one', 'notifications/two']);
    expect(transport.noise).toEqual(['not json']);
    expect(transport.noiseCount).toBe(1);
    const pid = transport.pid ?? 0;
    await transport.stop();
    expect(await processGroupAlive(pid)).toBe(false);
    expect(transport.exitedUnprompted).toBe(false);
  });

  it('keeps a bounded stderr tail that starts on a line boundary', async () => {
    const transport = node(`
      let out = '';
      for (let i = 0; i < 5000; i++) out += 'line ' + i + ' ' + 'x'.repeat(40) + '\\n';
      process.stderr.write(out, () => process.exit(0));
    `);
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    await until(() => closed);
    const text = transport.stderrText();
    expect(text.length).toBeLessThanOrEqual(STDERR_KEEP_BYTES + 70_000);
    expect(text.length).toBeGreaterThan(1000);
    expect(text).toMatch(/^line \d+ x+\n/);
    expect(text.trimEnd().endsWith(`line 4999 ${'x'.repeat(40)}`)).toBe(true);
    expect(transport.exitedUnprompted).toBe(true);
    expect(transport.describeExit()).toBe('it exited with code 0');
    await transport.stop();
  });

  it('reports a command that cannot be spawned', async () => {
    const transport = new ProcessGroupTransport({
      command: '/nonexistent/mcp-server',
      args: [],
      cwd: process.cwd(),
      env: {},
    });
    await expect(transport.start()).rejects.toThrow();
    expect(transport.describeExit()).toMatch(/could not be started.*ENOENT/);
    await transport.stop();
  });
});
