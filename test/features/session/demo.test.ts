/**
 * `npm run demo` (scripts/demo.mjs on the built CLI) end to end: every step succeeds, the smoke
 * table shows each role's granted and received tools, and the scripted session spawns the
 * researcher through mmo_mesh — saying plainly that its model is scripted and offline.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO, requireBuild } from '../../support/world.js';

describe('npm run demo', () => {
  it('runs the whole job and exits 0', async () => {
    requireBuild();
    const child = spawn(process.execPath, [join(REPO, 'scripts/demo.mjs')], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    expect(code, output).toBe(0);
    expect(output).toMatch(/lead\s+root\s+everything\s+echo, get-sum\s+echo, get-sum\s+ok/);
    expect(output).toMatch(
      /researcher\s+participant \(by lead\)\s+research\s+echo, get-resource-links\s+echo, get-resource-links\s+ok/,
    );
    expect(output).toContain('smoke: passed');
    expect(output).toContain("codex-mmo's built-in SCRIPTED model (offline, no API key)");
    expect(output).toMatch(
      /\[scripted lead\] spawned researcher-1 through mmo_mesh; it reported: \[scripted researcher\] the research server answered Echo: Model Context Protocol/,
    );
    expect(output).toMatch(/researcher-1\s+researcher\s+stopped/);
    expect(output).toContain('demo finished');
    // the example credentials never show
    expect(output).not.toContain('replace-me');
  }, 120_000);
});
