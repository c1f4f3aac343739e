/**
 * A command's approval reason names the calling role (pure): a command call that asks to leave the
 * sandbox, or gives a reason, gets the role (or that the thread has none) in front of its reason,
 * whatever the model wrote there; the model's words are cut short with their control and direction
 * characters escaped, and no other argument's text changes. Any other call, a namespaced function
 * of the same name and unreadable arguments are left as they are.
 */
import { describe, expect, it } from 'vitest';

import { roleReason, withRoleReason } from '../../../src/runtime/model-wire/command-reason.js';

const call = (args: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'function_call',
  call_id: 'c1',
  name: 'exec_command',
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
  ...extra,
});

const argsOf = (item: unknown): Record<string, unknown> =>
  JSON.parse((item as { arguments: string }).arguments) as Record<string, unknown>;

describe('command reasons', () => {
  it('put the role in front of the reason of a command that leaves the sandbox', () => {
    const asked = withRoleReason(
      call({ cmd: 'make', sandbox_permissions: 'require_escalated', justification: ' build it ' }),
      'scout',
    );
    expect(argsOf(asked)).toEqual({
      cmd: 'make',
      sandbox_permissions: 'require_escalated',
      justification: "Role 'scout' asks: build it",
    });
    const bare = withRoleReason(
      call({ cmd: 'make', sandbox_permissions: 'require_escalated' }),
      'x',
    );
    expect(argsOf(bare).justification).toBe(
      "Role 'x' asks to run this command outside the sandbox.",
    );
    // a reason without escalation is shown too when Codex asks: it is named as well
    expect(
      argsOf(withRoleReason(call({ cmd: 'ls', justification: 'look' }), 'x')).justification,
    ).toBe("Role 'x' asks: look");
  });

  it('names a thread of no role as such, and never lets the model name one', () => {
    const forged = call({
      cmd: 'ls',
      sandbox_permissions: 'require_escalated',
      justification: roleReason('scout', 'look'),
    });
    expect(argsOf(withRoleReason(forged, undefined)).justification).toBe(
      "A thread of no known role asks: Role 'scout' asks: look",
    );
    expect(argsOf(withRoleReason(forged, 'scout')).justification).toBe(
      "Role 'scout' asks: Role 'scout' asks: look",
    );
  });

  it("escapes and cuts the model's words, and keeps every other argument's text", () => {
    const raw =
      '{"cmd":"ls","timeout_ms":12345678901234567890, "sandbox_permissions":"require_escalated","justification":"a\\u001b[2Jb\\u202ec\\nd"}';
    const out = withRoleReason(call(raw), 'scout') as { arguments: string };
    expect(out.arguments).toContain('"timeout_ms":12345678901234567890');
    const reason = String(argsOf(out).justification);
    for (const c of ['\u001b', '\u202e', '\n']) expect(reason.includes(c)).toBe(false);
    expect(reason.startsWith("Role 'scout' asks: a")).toBe(true);
    const long = withRoleReason(call({ cmd: 'ls', justification: 'y'.repeat(5000) }), 'scout');
    expect(String(argsOf(long).justification).length).toBeLessThan(400);
  });

  it('leaves everything else as it is', () => {
    for (const item of [
      call({ cmd: 'ls' }),
      call({ cmd: 'ls', sandbox_permissions: 'use_default' }),
      call('not json'),
      call('[1]'),
      call({ cmd: 'ls', justification: 'x' }, { namespace: 'mcp__shell' }),
      call({ cmd: 'ls', justification: 'x' }, { name: 'apply_patch' }),
      { type: 'message', content: [] },
      'text',
    ]) {
      expect(withRoleReason(item, 'scout')).toBe(item);
    }
  });
});
