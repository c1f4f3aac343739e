import { readFile } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';

import { containment } from '../../../src/foundation/process/containment.js';
import { processStart } from '../../../src/foundation/process/tcp-peer.js';
import { descendantsOf, isAlive } from '../../../src/foundation/process/process-control.js';
import {
  ProcessGroupTransport,
  STDERR_KEEP_BYTES,
  processGroupAlive,
} from '../../../src/runtime/upstream/process-group-transport.js';

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

describe.runIf(containment().available)('ProcessGroupTransport, contained', () => {
  function contained(script: string, graceMs = 3000): ProcessGroupTransport {
    return new ProcessGroupTransport({
      command: process.execPath,
      args: ['-e', script],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
      graceMs,
      contained: true,
    });
  }
  // a server that never ends by itself: its stdin closing does not end it
  const STAYS = `process.stdin.resume(); setInterval(() => {}, 1000); console.log('{"jsonrpc":"2.0","method":"up"}');`;

  async function started(transport: ProcessGroupTransport): Promise<number> {
    let up = false;
    transport.onmessage = () => {
      up = true;
    };
    await transport.start();
    await until(() => up);
    const [server = 0, ...rest] = descendantsOf(transport.pid ?? 0);
    expect(rest).toEqual([]);
    return server;
  }

  it('runs the server as the first process of its container, beside unshare alone', async () => {
    const transport = contained(
      `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: String(process.pid) }) + '\\n'); setInterval(() => {}, 1000);`,
    );
    let method = '';
    transport.onmessage = (message) => {
      method = (message as { method: string }).method;
    };
    await transport.start();
    await until(() => method !== '');
    expect(method).toBe('1');
    const [server = 0] = descendantsOf(transport.pid ?? 0);
    expect(await readFile(`/proc/${String(server)}/cmdline`, 'utf8')).toMatch(/^[^\0]*node\0-e\0/);
    await transport.stop();
  });

  it('ends at once a Node server with no SIGTERM listener, whose own handler re-raises it', async () => {
    const transport = contained(STAYS);
    await started(transport);
    const stopping = Date.now();
    await transport.stop();
    expect(Date.now() - stopping).toBeLessThan(2000);
    expect(transport.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await processGroupAlive(transport.pid ?? 0)).toBe(false);
  });

  it('gives SIGTERM to a server that handles it, and lets it end as it chooses', async () => {
    const transport = contained(
      `${STAYS} process.on('SIGTERM', () => setTimeout(() => process.exit(7), 100));`,
    );
    await started(transport);
    await transport.stop();
    expect(transport.exit).toEqual({ code: 7, signal: null });
  });

  it('returns from stop only once nothing of the container is left, a process of another session included', async () => {
    // the server starts a child in a session of its own that ignores SIGTERM, and names it
    const transport = contained(
      `const c = require('child_process').spawn('/bin/sh', ['-c', 'trap "" TERM; exec sleep 30'], { detached: true, stdio: 'ignore' }); process.stdin.resume(); setInterval(() => {}, 1000); console.log(JSON.stringify({ jsonrpc: '2.0', method: String(c.pid) }));`,
    );
    let inside = '';
    transport.onmessage = (message) => {
      inside = (message as { method: string }).method;
    };
    await transport.start();
    await until(() => inside !== '');
    const [server = 0] = descendantsOf(transport.pid ?? 0);
    const others = descendantsOf(server);
    expect(others.length).toBeGreaterThan(0);
    // by pid and start time: a pid the busy machine hands out again is another process
    const stamps = [server, ...others].map((pid) => ({ pid, start: processStart(pid) }));
    await transport.stop();
    const left = stamps.filter((p) => isAlive(p.pid) && processStart(p.pid) === p.start);
    expect(left).toEqual([]);
  });

  it('kills a server that ignores SIGTERM after the grace', async () => {
    const transport = contained(`${STAYS} process.on('SIGTERM', () => {});`, 500);
    await started(transport);
    const stopping = Date.now();
    await transport.stop();
    expect(Date.now() - stopping).toBeGreaterThanOrEqual(450);
    expect(transport.exit?.signal).toBe('SIGKILL');
    expect(await processGroupAlive(transport.pid ?? 0)).toBe(false);
  });
});
