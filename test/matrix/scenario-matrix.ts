/**
 * The session scenario matrix (pure data): a scenario is ONE `codex-mmo exec` session of a team
 * in which every role kind runs at once — the root `lead`, its native role `aide`, the nested
 * native role `scribe` (started by `aide`), the participant `worker` (spawned through
 * `mmo_mesh`) and the participant's native role `helper` — × an approval mode × an end path ×
 * a Codex version.
 *
 * Covering design: each role gets a grant shape (same, narrower, wider, disjoint, none) relative
 * to its process root's grant (a process root's own shape is relative to the team's reference
 * grant). The five teams are the rows of a Latin square over role kind × shape, so 5 teams cover
 * every role kind with every shape; the square is chosen so a native role never has to be
 * `narrower` than an empty root grant. 5 teams × 4 approval modes × 5 end paths × 2 Codex
 * versions = 200 sessions. `scenarioMatrix(filter)` lists them, `sampleScenarios(seed, …)` draws
 * a seeded sample that still covers every role kind × shape (all five teams) when it can.
 */

export const ROLE_KINDS = [
  'root',
  'native',
  'nested-native',
  'participant',
  'participant-native',
] as const;
export type RoleKind = (typeof ROLE_KINDS)[number];

/** The role that plays each kind in every team. */
export const ROLE_OF_KIND: Readonly<Record<RoleKind, string>> = {
  root: 'lead',
  native: 'aide',
  'nested-native': 'scribe',
  participant: 'worker',
  'participant-native': 'helper',
};

export const SHAPES = ['same', 'narrower', 'wider', 'disjoint', 'none'] as const;
export type Shape = (typeof SHAPES)[number];

export const APPROVAL_MODES = ['auto', 'prompt-yes', 'prompt-no', 'prompt-timeout'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export const END_PATHS = [
  'natural',
  'session-stop',
  'sigint',
  'sigterm',
  'kill-supervisor',
] as const;
export type EndPath = (typeof END_PATHS)[number];

export const CODEX_VERSIONS = ['0.171', '0.149'] as const;
export type CodexVersion = (typeof CODEX_VERSIONS)[number];

/** Rows: teams; columns: ROLE_KINDS. Every column and row is a permutation of SHAPES. */
export const TEAM_SQUARE: readonly (readonly Shape[])[] = [
  ['none', 'wider', 'disjoint', 'same', 'narrower'],
  ['wider', 'disjoint', 'none', 'narrower', 'same'],
  ['same', 'narrower', 'wider', 'none', 'disjoint'],
  ['narrower', 'none', 'same', 'disjoint', 'wider'],
  ['disjoint', 'same', 'narrower', 'wider', 'none'],
];

export interface Scenario {
  /** `t<team>-<approval>-<end>-<version>`, unique. */
  readonly id: string;
  readonly team: number;
  readonly shapes: Readonly<Record<RoleKind, Shape>>;
  readonly approval: ApprovalMode;
  readonly end: EndPath;
  readonly version: CodexVersion;
}

export interface ScenarioFilter {
  readonly teams?: readonly number[];
  readonly approvals?: readonly ApprovalMode[];
  readonly ends?: readonly EndPath[];
  readonly versions?: readonly CodexVersion[];
}

export function teamShapes(team: number): Readonly<Record<RoleKind, Shape>> {
  const row = TEAM_SQUARE[team];
  if (row === undefined) throw new Error(`no team ${String(team)}: teams are 0 to 4`);
  return Object.fromEntries(ROLE_KINDS.map((k, i) => [k, row[i] ?? 'none'])) as Record<
    RoleKind,
    Shape
  >;
}

function scenario(team: number, approval: ApprovalMode, end: EndPath, version: CodexVersion) {
  return {
    id: `t${String(team)}-${approval}-${end}-${version}`,
    team,
    shapes: teamShapes(team),
    approval,
    end,
    version,
  };
}

/** Every scenario the filter admits, in a fixed order (version, team, approval, end). */
export function scenarioMatrix(filter: ScenarioFilter = {}): Scenario[] {
  const out: Scenario[] = [];
  for (const version of filter.versions ?? CODEX_VERSIONS) {
    for (const team of filter.teams ?? TEAM_SQUARE.keys()) {
      for (const approval of filter.approvals ?? APPROVAL_MODES) {
        for (const end of filter.ends ?? END_PATHS)
          out.push(scenario(team, approval, end, version));
      }
    }
  }
  return out;
}

/** A small seeded PRNG (mulberry32): the same seed, the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A seeded Fisher–Yates permutation of `items`. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * `count` scenarios the filter admits, drawn by `seed`: teams in a seeded order (so any 5 cover
 * every role kind × shape), each with a seeded approval mode and end path, without repeats.
 */
export function sampleScenarios(
  seed: number,
  count: number,
  filter: ScenarioFilter = {},
): Scenario[] {
  const random = seededRandom(seed);
  const pool = scenarioMatrix(filter);
  const teams = [...new Set(pool.map((s) => s.team))];
  const picked: Scenario[] = [];
  while (picked.length < Math.min(count, pool.length)) {
    const order = shuffled(teams, random);
    for (const team of order) {
      if (picked.length >= count) break;
      const left = pool.filter((s) => s.team === team && !picked.includes(s));
      const choice = left[Math.floor(random() * left.length)];
      if (choice !== undefined) picked.push(choice);
    }
    if (pool.every((s) => picked.includes(s))) break;
  }
  return picked;
}
