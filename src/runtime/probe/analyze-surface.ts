/**
 * Judges a server's live tool surface against its registry entry and its pin (pure):
 * `tool-not-offered` (an enabled or overridden tool the server lacks — Codex would silently drop
 * it), `approval-mode-risk` (the approval mode runs a tool that may write without asking),
 * `tool-offered-not-enabled` (offered tools the operator left out), `tool-drift` (the surface differs
 * from the pin), `tool-not-pinned` and `server-not-pinned`.
 */
import { countOf } from '../../foundation/diagnostics/count-words.js';
import { didYouMean } from '../../foundation/diagnostics/did-you-mean.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { entryLocation } from '../../config/registry/entry-location.js';
import type { ApprovalMode, RegistryEntry } from '../../config/registry/types.js';
import {
  keyLocation,
  type KeyLocation,
  type KeyPositions,
} from '../../foundation/toml/key-positions.js';
import { approvalRisk, codexAsksApproval } from './approval-risk.js';
import { NEWEST_CODEX, type CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { ServerPin } from '../../config/lock/lock-format.js';
import { maskDeep } from '../../foundation/diagnostics/mask-secrets.js';
import { compareWithPin, type ToolDrift } from './tool-drift.js';
import { surfaceDigests, type SurfaceDigests, type ToolSurface } from './tool-surface.js';

export type PinStatus = 'match' | 'drift' | 'unpinned';

/** One offered tool as the probe reports it (text masked; digests of the real surface). */
export interface ProbedTool extends ToolSurface {
  readonly enabled: boolean;
  /** Effective approval mode, for enabled tools. */
  readonly approvalMode?: ApprovalMode;
  /** Whether Codex asks before calling it, for enabled tools. */
  readonly asksApproval?: boolean;
  readonly digests: SurfaceDigests;
  /** Comparison with the pin, for enabled tools of a pinned server. */
  readonly pin?: PinStatus;
}

export interface PinReference {
  /** The server's pin, if it has one. */
  readonly pin?: ServerPin;
  /** Path of the lock file, for diagnostics. */
  readonly file: string;
  readonly positions?: KeyPositions;
}

export interface SurfaceAnalysis {
  readonly tools: ProbedTool[];
  readonly drift: ToolDrift[];
  readonly diagnostics: Diagnostic[];
}

/** Offered names listed in a message before "and N more". */
const NAMES_SHOWN = 12;

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return names.length > NAMES_SHOWN ? `${shown}, and ${names.length - NAMES_SHOWN} more` : shown;
}

export function analyzeSurface(
  entry: RegistryEntry,
  offered: readonly ToolSurface[],
  pinRef: PinReference,
  secrets: readonly string[],
  /** The Codex whose approval behaviour applies (default: the newest supported). */
  codex: CodexVersionFacts = NEWEST_CODEX,
): SurfaceAnalysis {
  const definition = entry.definition;
  const server = definition.id;
  const diagnostics: Diagnostic[] = [];
  const enabled = new Set(definition.enabled_tools);
  const offeredNames = offered.map((t) => t.name);
  const offeredSet = new Set(offeredNames);
  const overrides = definition.tools ?? {};
  const pinCommand = `codex-mmo tool-mcp pin ${server}`;

  // enabled and overridden names the server does not offer
  definition.enabled_tools.forEach((name, index) => {
    if (offeredSet.has(name)) return;
    const override = Object.hasOwn(overrides, name) ? ' (it also has a tools override)' : '';
    diagnostics.push(
      diagnostic({
        code: 'tool-not-offered',
        message: `server '${server}' does not offer tool '${name}'${override}${didYouMean(name, offeredNames)}; Codex silently ignores it, so no agent would get it. Fix the name in enabled_tools${offeredNames.length > 0 ? ` (offered: ${listNames(offeredNames)})` : ' (the server offers no tools)'}`,
        server,
        ...entryLocation(entry, ['enabled_tools', index]),
      }),
    );
  });
  for (const name of Object.keys(overrides)) {
    if (offeredSet.has(name) || enabled.has(name)) continue;
    diagnostics.push(
      diagnostic({
        code: 'tool-not-offered',
        message: `server '${server}' does not offer tool '${name}'${didYouMean(name, offeredNames)}; remove or rename its tools override`,
        server,
        ...entryLocation(entry, ['tools', name]),
      }),
    );
  }

  const pin = pinRef.pin;
  const pinned = new Map((pin?.tools ?? []).map((t) => [t.name, t]));
  const lockLocation = (tool: string): KeyLocation =>
    keyLocation(pinRef.file, pinRef.positions, ['servers', server, 'tools', tool]);

  const tools: ProbedTool[] = [];
  const drift: ToolDrift[] = [];
  const unpinned: string[] = [];
  for (const raw of offered) {
    const digests = surfaceDigests(raw);
    const shown = maskDeep(raw, secrets);
    if (!enabled.has(raw.name)) {
      tools.push({ ...shown, enabled: false, digests });
      continue;
    }
    const override = overrides[raw.name];
    const mode = override?.approval_mode ?? definition.default_tools_approval_mode;
    const risk = approvalRisk(mode, raw.annotations, codex);
    if (risk !== undefined) {
      const key =
        override !== undefined
          ? ['tools', raw.name, 'approval_mode']
          : ['default_tools_approval_mode'];
      diagnostics.push(
        diagnostic({
          severity: 'warning',
          code: 'approval-mode-risk',
          message: `tool '${raw.name}' of server '${server}': ${risk}; set [tool_mcp_servers.${server}.tools.${raw.name}] approval_mode = "prompt" to be asked before every call`,
          server,
          ...entryLocation(entry, key),
        }),
      );
    }
    let status: PinStatus | undefined;
    if (pin !== undefined) {
      const pinnedTool = pinned.get(raw.name);
      if (pinnedTool === undefined) {
        status = 'unpinned';
        unpinned.push(raw.name);
      } else {
        const change = compareWithPin(shown, digests, pinnedTool);
        status = change === undefined ? 'match' : 'drift';
        if (change !== undefined) {
          drift.push(change);
          diagnostics.push(
            diagnostic({
              code: 'tool-drift',
              message: `tool '${raw.name}' of server '${server}' changed since it was pinned: ${change.changes.map((c) => c.summary).join('; ')}. A changed tool can redirect what an agent does; review the change, then run \`${pinCommand}\` to accept it`,
              server,
              ...lockLocation(raw.name),
            }),
          );
        }
      }
    }
    tools.push({
      ...shown,
      enabled: true,
      approvalMode: mode,
      asksApproval: codexAsksApproval(mode, raw.annotations, codex),
      digests,
      ...(status !== undefined ? { pin: status } : {}),
    });
  }

  const notEnabled = offeredNames.filter((n) => !enabled.has(n));
  if (notEnabled.length > 0) {
    diagnostics.push(
      diagnostic({
        severity: 'info',
        code: 'tool-offered-not-enabled',
        message: `server '${server}' offers ${countOf(notEnabled.length, 'tool')} that enabled_tools leaves out, so no agent gets ${notEnabled.length === 1 ? 'it' : 'them'}: ${listNames(notEnabled)}`,
        server,
        ...entryLocation(entry, ['enabled_tools']),
      }),
    );
  }
  if (pin === undefined) {
    diagnostics.push(
      diagnostic({
        severity: 'info',
        code: 'server-not-pinned',
        message: `server '${server}' has no pin in ${pinRef.file}; after reviewing its tools, run \`${pinCommand}\` so later changes to them are reported`,
        server,
        ...entryLocation(entry),
      }),
    );
  } else if (unpinned.length > 0) {
    diagnostics.push(
      diagnostic({
        severity: 'warning',
        code: 'tool-not-pinned',
        message: `${unpinned.length === 1 ? 'enabled tool' : 'enabled tools'} ${listNames(unpinned)} of server '${server}' ${unpinned.length === 1 ? 'is' : 'are'} not in its pin; review them, then run \`${pinCommand}\` to record them`,
        server,
        ...keyLocation(pinRef.file, pinRef.positions, ['servers', server]),
      }),
    );
  }
  return { tools, drift, diagnostics };
}
