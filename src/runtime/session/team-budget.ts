/**
 * A session's team budget (pure): its ceilings — participants alive at once, Codex processes,
 * Tool MCP server processes, memory — set by the operator's `run`/`exec` options and narrowed by
 * the pack's `[budget]` (never raised), and the
 * decision whether a participant spawn or a server start fits them, with the words the calling
 * role and the session's record get when it does not.
 */

import type { PackBudget } from '../../config/profile/types.js';

/** A session's ceilings; an absent one is no ceiling. */
export interface TeamBudget {
  /** Participants alive at once (`--max-participants`, default 8). */
  readonly participants: number;
  /** Codex processes alive at once: the root and its participants (`--max-codex-processes`). */
  readonly codex_processes?: number;
  /** Tool MCP server processes alive at once (`--max-server-processes`): stdio servers. */
  readonly server_processes?: number;
  /** Resident memory of every process of the session together, in MB (`--max-memory`). */
  readonly memory_mb?: number;
  /** The ceilings the pack's `[budget]` set (lower than the operator's), named so in refusals. */
  readonly from_pack?: readonly BudgetCeiling[];
}

/** What the session uses now (and, for a start, what it holds for starts under way). */
export interface TeamUse {
  readonly participants: number;
  readonly codex_processes: number;
  readonly server_processes: number;
  /** Resident memory of the session's processes, in MB; undefined when it was not measured. */
  readonly memory_mb?: number;
}

/** The ceiling a refusal names. */
export type BudgetCeiling = 'participants' | 'codex_processes' | 'server_processes' | 'memory_mb';

export interface BudgetRefusal {
  readonly ceiling: BudgetCeiling;
  /** For the calling role and the record: what was refused, the use and the ceiling. */
  readonly message: string;
}

const OPTION: Readonly<Record<BudgetCeiling, string>> = {
  participants: '--max-participants',
  codex_processes: '--max-codex-processes',
  server_processes: '--max-server-processes',
  memory_mb: '--max-memory',
};

function refused(
  budget: TeamBudget,
  ceiling: BudgetCeiling,
  what: string,
  limit: number,
  advice?: string,
): BudgetRefusal {
  const then = advice === undefined ? '' : `; ${advice}`;
  const source = budget.from_pack?.includes(ceiling)
    ? `the pack's [budget] ${ceiling} = ${String(limit)}`
    : `${OPTION[ceiling]} ${String(limit)}`;
  return { ceiling, message: `${what}, its limit (${source})${then} [budget-exceeded]` };
}

/** A pack ceiling above the operator's: the operator's applies. */
export interface PackAboveLimit {
  readonly ceiling: BudgetCeiling;
  readonly pack: number;
  readonly operator: number;
  readonly option: string;
}

/**
 * The operator's ceilings narrowed by the pack's (pure): a pack ceiling lower than the operator's,
 * or where the operator set none, applies; one above the operator's does not and is returned.
 */
export function withinOperator(
  operator: TeamBudget,
  pack: PackBudget | undefined,
): { readonly budget: TeamBudget; readonly above: readonly PackAboveLimit[] } {
  if (pack === undefined) return { budget: operator, above: [] };
  const out: { -readonly [K in keyof TeamBudget]: TeamBudget[K] } = { ...operator };
  const fromPack: BudgetCeiling[] = [];
  const above: PackAboveLimit[] = [];
  for (const ceiling of [
    'participants',
    'codex_processes',
    'server_processes',
    'memory_mb',
  ] as const) {
    const asked = pack[ceiling];
    if (asked === undefined) continue;
    const limit = operator[ceiling];
    if (limit === undefined || asked < limit) {
      out[ceiling] = asked;
      fromPack.push(ceiling);
    } else if (asked > limit) {
      above.push({ ceiling, pack: asked, operator: limit, option: OPTION[ceiling] });
    }
  }
  return { budget: fromPack.length > 0 ? { ...out, from_pack: fromPack } : out, above };
}

/**
 * Whether one more participant (one more Codex process) fits: `expectedMb` is what a Codex
 * process of this session is expected to take (the mean of those running).
 */
export function spawnRefusal(
  budget: TeamBudget,
  use: TeamUse,
  expectedMb: number,
): BudgetRefusal | undefined {
  if (use.participants >= budget.participants) {
    return refused(
      budget,
      'participants',
      `the session already runs ${String(use.participants)} participants`,
      budget.participants,
      'stop one with stop_participant first',
    );
  }
  const codex = budget.codex_processes;
  if (codex !== undefined && use.codex_processes >= codex) {
    return refused(
      budget,
      'codex_processes',
      `the session already runs ${String(use.codex_processes)} Codex processes`,
      codex,
      'stop a participant with stop_participant first',
    );
  }
  return memoryRefusal(budget, use, expectedMb, 'a participant');
}

/** Whether one more Tool MCP server process fits (`expectedMb`: what a server is expected to take). */
export function serverRefusal(
  budget: TeamBudget,
  use: TeamUse,
  server: string,
  expectedMb: number,
): BudgetRefusal | undefined {
  const max = budget.server_processes;
  if (max !== undefined && use.server_processes >= max) {
    return refused(
      budget,
      'server_processes',
      `server '${server}' was not started: the session already runs ${String(use.server_processes)} server processes`,
      max,
    );
  }
  return memoryRefusal(budget, use, expectedMb, `server '${server}'`);
}

function memoryRefusal(
  budget: TeamBudget,
  use: TeamUse,
  expectedMb: number,
  what: string,
): BudgetRefusal | undefined {
  const max = budget.memory_mb;
  if (max === undefined || use.memory_mb === undefined) return undefined;
  if (use.memory_mb + expectedMb <= max) return undefined;
  return refused(
    budget,
    'memory_mb',
    `${what} was not started: the session's processes take ${String(Math.round(use.memory_mb))} MB and one more would take about ${String(Math.round(expectedMb))} MB`,
    max,
  );
}

/** The ceilings an option names, from the operator's options (absent: none). */
export type BudgetOptions = {
  readonly [K in 'codex_processes' | 'server_processes' | 'memory_mb']?: string | undefined;
};

export type ResolvedBudget =
  | { readonly ok: true; readonly value: TeamBudget }
  | { readonly ok: false; readonly message: string };

/** A team budget from the participant cap and the other options (whole numbers, 0 or more). */
export function resolveTeamBudget(participants: number, options: BudgetOptions): ResolvedBudget {
  const out: { -readonly [K in keyof TeamBudget]: TeamBudget[K] } = { participants };
  for (const key of ['codex_processes', 'server_processes', 'memory_mb'] as const) {
    const text = options[key];
    if (text === undefined) continue;
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value)) {
      const unit = key === 'memory_mb' ? 'megabytes' : 'processes';
      return {
        ok: false,
        message: `option '${OPTION[key]}' needs a whole number of ${unit} (0 or more), not '${text}'`,
      };
    }
    out[key] = value;
  }
  return { ok: true, value: out };
}

/** `use/ceiling` for each ceiling, as `session show` prints them (no ceiling: `use`). */
export function budgetLines(budget: TeamBudget, use: TeamUse): [string, string][] {
  const of = (n: number | undefined, max: number | undefined, unit = ''): string =>
    n === undefined
      ? 'not measured'
      : `${String(Math.round(n))}${unit}${max === undefined ? ' (no limit)' : ` of ${String(max)}${unit}`}`;
  return [
    ['participants', of(use.participants, budget.participants)],
    ['Codex processes', of(use.codex_processes, budget.codex_processes)],
    ['server processes', of(use.server_processes, budget.server_processes)],
    ['memory', of(use.memory_mb, budget.memory_mb, ' MB')],
  ];
}
