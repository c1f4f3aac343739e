/**
 * The host view's seccomp program, loaded by the `bwrap` Codex ships: IP and Unix datagram
 * sockets open, a Unix stream connection (path or abstract) is refused with EPERM, and a program
 * of a machine the filter does not know is not made.
 */
import { describe, expect, it } from 'vitest';

import {
  bwrapCandidates,
  findHostView,
  hostViewLaunch,
  spawnInView,
} from '../../../src/foundation/process/host-view.js';
import { hostSocketFilter } from '../../../src/foundation/process/socket-filter.js';
import { resolveCodexLaunch } from '../../../src/runtime/codex/native-codex.js';
import { TEST_CODEX_BIN } from '../../support/codex-bin.js';

const PROBE = `
const net = require('net'), dgram = require('dgram');
const out = [];
try { dgram.createSocket('udp4').close(); out.push('udp:ok'); } catch (e) { out.push('udp:' + e.code); }
const attempt = (name, ...target) => new Promise((r) => {
  const s = net.connect(...target);
  s.on('error', (e) => { out.push(name + ':' + (e.code === 'EPERM' ? 'EPERM' : 'reached')); r(); });
  s.on('connect', () => { out.push(name + ':reached'); s.destroy(); r(); });
});
Promise.all([
  attempt('abstract', '\\0codex-mmo-nothing'),
  attempt('path', '/run/codex-mmo-nothing.sock'),
  attempt('tcp', 9, '127.0.0.1'),
]).then(() => console.log(out.sort().join(' ')));
`;

describe('hostSocketFilter', () => {
  it('is a whole number of instructions ending in a return, for each known machine', () => {
    for (const arch of ['x64', 'arm64'] as const) {
      const program = hostSocketFilter(arch) ?? Buffer.alloc(1);
      expect(program.length % 8).toBe(0);
      expect(program.readUInt16LE(program.length - 8)).toBe(0x06);
    }
    expect(hostSocketFilter('ia32')).toBeUndefined();
  });

  it('admits IP sockets and refuses Unix stream connections once loaded', async () => {
    const native = await resolveCodexLaunch(TEST_CODEX_BIN);
    const view = await findHostView(bwrapCandidates(native.command));
    expect(view.available, view.available ? '' : view.reason).toBe(true);
    if (!view.available) return;
    const launch = hostViewLaunch(view, { keep: [] });
    expect(launch).toBeDefined();
    if (launch === undefined) return;
    const child = spawnInView(launch, [process.execPath, '-e', PROBE], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => (out += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(out.trim()).toBe('abstract:EPERM path:EPERM tcp:reached udp:ok');
  });
});

describe('hostViewLaunch', () => {
  const view = { available: true, bwrap: '/usr/bin/bwrap' } as const;

  it('makes /tmp, /dev/shm and /run/user private, keeping what lies inside them', () => {
    const launch = hostViewLaunch(
      view,
      { keep: ['/tmp/w/work', '/srv/home'], make: ['/tmp/t'], hide: ['/xdg'] },
      () => true,
    );
    const argv = launch?.argv.join(' ') ?? '';
    expect(argv).toContain('--perms 1777 --tmpfs /tmp');
    expect(argv).toContain('--perms 1777 --tmpfs /dev/shm');
    expect(argv).toContain('--perms 0700 --tmpfs /run/user');
    expect(argv).toContain('--perms 0700 --tmpfs /xdg');
    expect(argv).toContain('--bind /tmp/w/work /tmp/w/work');
    expect(argv).not.toContain('/srv/home');
    expect(argv).toContain('--dir /tmp/t');
    expect(argv.endsWith('--seccomp 10 --')).toBe(true);
  });

  it('leaves a directory shared that a kept one holds, and skips absent ones', () => {
    const launch = hostViewLaunch(view, { keep: ['/tmp'] }, (dir) => dir !== '/run/user');
    const argv = launch?.argv.join(' ') ?? '';
    expect(argv).not.toContain('--tmpfs /tmp');
    expect(argv).not.toContain('/run/user');
    expect(argv).toContain('--tmpfs /dev/shm');
  });
});

describe('findHostView', () => {
  it('says why where no bwrap is found or none builds the view', async () => {
    const none = await findHostView(['/nonexistent/bwrap']);
    expect(none.available).toBe(false);
    expect(none.available ? '' : none.reason).toContain('/nonexistent/bwrap');
    const failing = await findHostView(['/bin/false'], () =>
      Promise.resolve({ ok: false, detail: 'no user namespaces' }),
    );
    expect(failing.available ? '' : failing.reason).toContain('no user namespaces');
  });
});
