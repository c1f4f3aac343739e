/**
 * A session's team budget (pure): its ceilings — participants alive at once, Codex processes,
 * Tool MCP server processes, memory — set by the operator's `run`/`exec` options, and the
 * decision whether a participant spawn or a server start fits them, with the words the calling
 * role and the session's record get when it does not.
 */

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
  ceiling: BudgetCeiling,
  what: string,
  limit: number,
  advice?: string,
): BudgetRefusal {
  const then = advice === undefined ? '' : `; ${advice}`;
  return {
    ceiling,
    message: `${what}, its limit (${OPTION[ceiling]} ${String(limit)})${then} [budget-exceeded]`,
  };
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
      'participants',
      `the session already runs ${String(use.participants)} participants`,
      budget.participants,
      'stop one with stop_participant first',
    );
  }
  const codex = budget.codex_processes;
  if (codex !== undefined && use.codex_processes >= codex) {
    return refused(
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
