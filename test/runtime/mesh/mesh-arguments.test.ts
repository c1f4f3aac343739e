/**
 * The arguments of the mmo_mesh tools: the schema `tools/list` gives, and the check every call's
 * arguments pass, naming each problem with its parameter.
 */
import { describe, expect, it } from 'vitest';

import { checkMeshArguments, meshInputSchema } from '../../../src/runtime/mesh/mesh-arguments.js';

describe('mmo_mesh arguments', () => {
  it('describes each parameter with its type, bound and requirement', () => {
    expect(meshInputSchema('wait_participant')).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        participant: {
          type: 'string',
          minLength: 1,
          description: 'Participant id from spawn_participant',
        },
        timeout_sec: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'Longest time to wait, in seconds',
        },
      },
      required: ['participant'],
    });
    expect(meshInputSchema('list_participants')).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {},
    });
  });

  it.each([
    ['spawn_participant', { role: 'r', task: 't' }, { role: 'r', task: 't' }],
    [
      'spawn_participant',
      { role: 'r', task: 't', cwd: '/w', extra: 1 },
      { role: 'r', task: 't', cwd: '/w' },
    ],
    [
      'wait_participant',
      { participant: 'p-1', timeout_sec: 0.5 },
      { participant: 'p-1', timeout_sec: 0.5 },
    ],
    ['list_participants', undefined, {}],
  ] as const)('admits %s %j', (tool, args, values) => {
    expect(checkMeshArguments(tool, args)).toEqual({ ok: true, values });
  });

  it.each([
    [
      'spawn_participant',
      { role: '', task: 3 },
      ['expected a non-empty string at role', 'expected string, received number at task'],
    ],
    [
      'spawn_participant',
      {},
      [
        'expected string, received undefined at role',
        'expected string, received undefined at task',
      ],
    ],
    [
      'send_message',
      { participant: ['p'], message: null },
      [
        'expected string, received array at participant',
        'expected string, received null at message',
      ],
    ],
    [
      'wait_participant',
      { participant: 'p', timeout_sec: 0 },
      ['expected a number greater than 0 at timeout_sec'],
    ],
    [
      'wait_participant',
      { participant: 'p', timeout_sec: '5' },
      ['expected number, received string at timeout_sec'],
    ],
    [
      'wait_participant',
      { participant: 'p', timeout_sec: null },
      ['expected number, received null at timeout_sec'],
    ],
    ['stop_participant', 'p-1', ['expected an object of arguments, received string']],
    ['list_participants', [], ['expected an object of arguments, received array']],
  ] as const)('refuses %s %j, naming every problem', (tool, args, problems) => {
    expect(checkMeshArguments(tool, args)).toEqual({ ok: false, problems });
  });
});
