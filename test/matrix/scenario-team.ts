/**
 * The team of a scenario (pure): the operator's registry (`notes`: read, write, echo, list;
 * `vault`: peek, poke, whose credential is the scenario's canary; `write` and `poke` are the
 * writing tools an approval mode asks about), each role's grant from its shape, its process and
 * its natives, and the calls every role's scripted model makes: every tool of the registry —
 * granted or not, as a prompt-injected model would — and a tool of a server no one has.
 */
import { ROLE_OF_KIND, type RoleKind, type Scenario, type Shape } from './scenario-matrix.js';

/** Server → tools, in registry order. */
export type Grant = Readonly<Record<string, readonly string[]>>;

export const REGISTRY: Grant = {
  notes: ['read', 'write', 'echo', 'list'],
  vault: ['peek', 'poke'],
};
/** Tools not annotated read-only: asked about in the prompt approval modes. */
export const WRITING_TOOLS: ReadonlySet<string> = new Set(['notes.write', 'vault.poke']);
/** The team's reference grant, against which the process roots' own shapes are taken. */
export const REFERENCE_GRANT: Grant = { notes: ['read', 'write', 'echo'] };
/** A server no process has: Codex answers such a call itself. */
export const GHOST_TOOL: readonly [string, string] = ['ghost', 'haunt'];
/** The order `disjoint` picks a server the base grant lacks (the canary's server first). */
const DISJOINT_ORDER = ['vault', 'notes'];

const registryPairs = (): [string, string][] =>
  Object.entries(REGISTRY).flatMap(([s, tools]) => tools.map((t): [string, string] => [s, t]));

function fromPairs(pairs: readonly (readonly [string, string])[]): Grant {
  const out: Record<string, string[]> = {};
  for (const [server, tool] of registryPairs()) {
    if (pairs.some(([s, t]) => s === server && t === tool)) (out[server] ??= []).push(tool);
  }
  return out;
}

const pairsOf = (grant: Grant): [string, string][] =>
  Object.entries(grant).flatMap(([s, tools]) => tools.map((t): [string, string] => [s, t]));

export const hasTool = (grant: Grant, server: string, tool: string): boolean =>
  grant[server]?.includes(tool) === true;

/** The grant of `shape` relative to `base`; throws where the shape cannot be built. */
export function shapeGrant(shape: Shape, base: Grant): Grant {
  switch (shape) {
    case 'same':
      return base;
    case 'none':
      return {};
    case 'narrower': {
      const server = Object.keys(base).find((s) => (base[s]?.length ?? 0) >= 2);
      if (server === undefined) throw new Error('no grant is narrower than one of single tools');
      return fromPairs(pairsOf(base).filter(([s, t]) => !(s === server && t === base[s]?.at(-1))));
    }
    case 'wider': {
      const extra = registryPairs().find(([s, t]) => !hasTool(base, s, t));
      if (extra === undefined) throw new Error('the registry has nothing wider');
      return fromPairs([...pairsOf(base), extra]);
    }
    case 'disjoint': {
      const server = DISJOINT_ORDER.find((s) => base[s] === undefined);
      if (server === undefined) throw new Error('no server is disjoint from the base grant');
      return { [server]: REGISTRY[server] ?? [] };
    }
  }
}

export interface TeamRole {
  readonly name: string;
  readonly kind: RoleKind;
  /** The Codex process it runs in: `root` or the participant `worker-1`. */
  readonly process: string;
  readonly grant: Grant;
  readonly natives: readonly string[];
  /** Whether it has `spawn`/`control` (then it is offered `mmo_mesh`). */
  readonly mesh: boolean;
}

export const PARTICIPANT_ID = 'worker-1';

/** The five roles of a scenario's team, by name. */
export function teamRoles(scenario: Pick<Scenario, 'shapes'>): Readonly<Record<string, TeamRole>> {
  const role = (kind: RoleKind, base: Grant, process: string, natives: string[]): TeamRole => ({
    name: ROLE_OF_KIND[kind],
    kind,
    process,
    grant: shapeGrant(scenario.shapes[kind], base),
    natives,
    mesh: kind === 'root',
  });
  const lead = role('root', REFERENCE_GRANT, 'root', ['aide']);
  const worker = role('participant', REFERENCE_GRANT, PARTICIPANT_ID, ['helper']);
  const roles = [
    lead,
    role('native', lead.grant, 'root', ['scribe']),
    role('nested-native', lead.grant, 'root', []),
    worker,
    role('participant-native', worker.grant, PARTICIPANT_ID, []),
  ];
  return Object.fromEntries(roles.map((r) => [r.name, r]));
}

/** What the roles of one process are granted together (what its Codex configuration enables). */
export function processUnion(roles: Readonly<Record<string, TeamRole>>, process: string): Grant {
  const inProcess = Object.values(roles).filter((r) => r.process === process);
  return fromPairs(inProcess.flatMap((r) => pairsOf(r.grant)));
}

/** The tool calls every role's model makes, in order, before starting its own natives. */
export function callPlan(): [string, string][] {
  return [...registryPairs(), [GHOST_TOOL[0], GHOST_TOOL[1]]];
}

/** The text argument of a role's call: says who called which tool (`aide:notes.read`). */
export const callMarker = (role: string, server: string, tool: string, suffix = ''): string =>
  `${role}:${server}.${tool}${suffix}`;

/** Parses a marker back (`undefined` when `text` holds none). */
export function parseMarker(
  text: string,
): { role: string; server: string; tool: string; final: boolean } | undefined {
  const match = /\b([a-z]+):([a-z]+)\.([a-z]+)(:final)?/.exec(text);
  if (match?.[1] === undefined || match[2] === undefined || match[3] === undefined)
    return undefined;
  return { role: match[1], server: match[2], tool: match[3], final: match[4] !== undefined };
}

/**
 * The writing tool the last role (`helper`) calls at the end of an early-ending scenario with a
 * prompt approval mode, left unanswered so the session ends while it is pending (in the time-out
 * mode, such a scenario's time-out is long enough for the end to come first).
 */
export function finalPendingCall(
  scenario: Pick<Scenario, 'shapes' | 'approval' | 'end'>,
): [string, string] | undefined {
  if (scenario.end === 'natural' || scenario.approval === 'auto') return undefined;
  const helper = teamRoles(scenario).helper;
  return callPlan().find(
    ([s, t]) =>
      helper !== undefined && hasTool(helper.grant, s, t) && WRITING_TOOLS.has(`${s}.${t}`),
  );
}
