/**
 * A pack's `[budget]` table: the ceilings its sessions keep to (participants, Codex processes,
 * server processes, memory in MB), each a whole number above zero. A session applies them within
 * the operator's own ceilings (`runtime/session/team-budget.ts`); a pack never raises one.
 */
import { describe, isTable, type PackCheck } from './pack-check.js';
import { BUDGET_KEYS } from './pack-fields.js';
import type { PackBudget } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The checked `[budget]`, or undefined when the pack has none (problems are reported). */
export function validatePackBudget(check: PackCheck, value: unknown): PackBudget | undefined {
  if (value === undefined) return undefined;
  if (!isTable(value)) {
    check.report(
      'invalid-type',
      ['budget'],
      `\`budget\` must be a table of ceilings ([budget] with ${BUDGET_KEYS.join(', ')}), not ${describe(value)}`,
    );
    return undefined;
  }
  const budget: Mutable<PackBudget> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!(BUDGET_KEYS as readonly string[]).includes(key)) {
      check.unknownKey(['budget', key], key, BUDGET_KEYS, '[budget]');
      continue;
    }
    if (typeof item !== 'number' || !Number.isInteger(item) || item < 1) {
      check.report(
        'invalid-value',
        ['budget', key],
        `\`budget.${key}\` must be a whole number above zero, not ${describe(item)}`,
      );
      continue;
    }
    budget[key as keyof PackBudget] = item;
  }
  return budget;
}
