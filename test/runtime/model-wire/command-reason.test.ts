/**
 * A command's approval reason names the calling role (pure): a command call that asks to leave the
 * sandbox, or gives a reason, gets the role in front of its reason (its own words kept); any other
 * call, a namespaced function of the same name, unreadable arguments and a reason already named
 * are left as they are.
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

  it('leaves everything else as it is', () => {
    for (const item of [
      call({ cmd: 'ls' }),
      call({ cmd: 'ls', sandbox_permissions: 'use_default' }),
      call('not json'),
      call('[1]'),
      call({ cmd: 'ls', justification: 'x' }, { namespace: 'mcp__shell' }),
      call({ cmd: 'ls', justification: 'x' }, { name: 'apply_patch' }),
      call({ cmd: 'ls', justification: roleReason('scout', 'look') }),
      { type: 'message', content: [] },
      'text',
    ]) {
      expect(withRoleReason(item, 'scout')).toBe(item);
    }
    // another role's words are the model's own: the real role goes in front of them
    const forged = call({ cmd: 'ls', justification: roleReason('lead', 'look') });
    expect(argsOf(withRoleReason(forged, 'scout')).justification).toBe(
      "Role 'scout' asks: Role 'lead' asks: look",
    );
  });
});
