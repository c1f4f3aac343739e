/**
 * `pinServer`: probes a server and records in `tool-mcp.lock` every field of every enabled tool
 * it offers, what it says of itself (instructions, server info, resources, prompts), the lease (its `initialize` answer and those tools as listed), replacing
 * that server's previous pin (accepting any drift). Pinning refuses —
 * and leaves the lock untouched — when the probe has any error other than `tool-drift` (for
 * example `tool-not-offered` or a server that does not start), or when the lock file as a whole
 * cannot be read (a broken entry of another server is dropped and can be pinned again), so a pin
 * always describes a complete, working surface and never silently discards other pins.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { RegistryEntry } from '../../config/registry/types.js';
import type { ServerLease } from '../../config/snapshot/types.js';
import type { ProbedTool } from './analyze-surface.js';
import { readLockFile, updateLock } from '../../config/lock/lock-file.js';
import {
  sameServerPin,
  withServerPin,
  type PinnedTool,
  type ServerPin,
} from '../../config/lock/lock-format.js';
import { probeServer, type ProbeContext, type ProbeResult } from './probe-server.js';
import type { PartChange, ToolDrift } from './tool-drift.js';
import { canonicalPart, listedDefinition } from './tool-surface.js';
import { ownValue } from '../../config/registry/own-record.js';
import { definitionIdentity, identityDigest } from '../../config/lock/definition-identity.js';
import { definitionChanges as changesSincePin } from '../../config/lock/pin-check.js';

/** Diagnostics a successful pin resolves, so they are not repeated in its report. */
const RESOLVED_BY_PIN = new Set([
  'tool-drift',
  'tool-not-pinned',
  'server-not-pinned',
  'definition-drift',
  'server-identity-changed',
  'pin-definition-missing',
  'server-drift',
  'pin-incomplete',
]);
/** Errors that do not stop a pin: drift is what a pin accepts; a broken entry is rewritten. */
const ACCEPTED_BY_PIN = new Set([
  'tool-drift',
  'definition-drift',
  'server-identity-changed',
  'server-drift',
  'lock-file-invalid',
]);

export interface PinContext extends Omit<ProbeContext, 'lock'> {
  readonly configDir: string;
  /** Clock for `pinned_at` (tests fix it). */
  readonly now?: () => Date;
  /**
   * A probe of this very server just made (by `tool-mcp add`): pinned as it is, judged against
   * the entry's enabled_tools, without starting the server again.
   */
  readonly probe?: ProbeResult;
}

export interface PinResult {
  readonly ok: boolean;
  readonly server: string;
  readonly probe: ProbeResult;
  /** The pin now in the lock file (absent when pinning was refused). */
  readonly pin?: ServerPin;
  /** Whether the lock file was written (false when the surface was already pinned as is). */
  readonly written: boolean;
  readonly lockFile: string;
  /** Tools whose pinned surface changed, as the probe saw them. */
  readonly accepted: readonly ToolDrift[];
  /** What the server says of itself that changed since the previous pin, as the probe saw it. */
  readonly acceptedServer: readonly PartChange[];
  /** Tools pinned for the first time. */
  readonly added: readonly string[];
  /** Tools dropped from the pin (no longer enabled). */
  readonly removed: readonly string[];
  /** How the definition differs from the previous pin (empty when unchanged or first pin). */
  readonly definitionChanges: readonly string[];
  /** The server's reported name and version before and now, when they changed. */
  readonly identity?: { readonly before: string; readonly after: string };
  readonly diagnostics: readonly Diagnostic[];
}

/** A tool's pin; `tool` is masked for display, its digests are of the real surface. */
function pinnedToolOf(tool: ProbedTool): PinnedTool {
  return {
    name: tool.name,
    digest: tool.digests.digest,
    ...(tool.digests.description !== undefined
      ? { descriptionDigest: tool.digests.description }
      : {}),
    inputSchemaDigest: tool.digests.inputSchema,
    ...(tool.digests.annotations !== undefined
      ? { annotationsDigest: tool.digests.annotations }
      : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: canonicalPart(tool.inputSchema),
    ...(tool.annotations !== undefined ? { annotations: canonicalPart(tool.annotations) } : {}),
    listedDigest: tool.digests.listed,
    listed: canonicalPart(listedDefinition(tool)),
  };
}

/** The probe's lease narrowed to the pinned tools, sorted by name. */
function pinnedLease(probe: ProbeResult, pinned: ReadonlySet<string>): { lease?: ServerLease } {
  const lease = probe.lease;
  if (lease === undefined) return {};
  const tools = lease.tools
    .filter((tool) => typeof tool.name === 'string' && pinned.has(tool.name))
    .sort((a, b) =>
      String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0,
    );
  return { lease: { ...lease, tools } };
}

export async function pinServer(entry: RegistryEntry, ctx: PinContext): Promise<PinResult> {
  const server = entry.definition.id;
  const lock = await readLockFile(ctx.configDir);
  const probe = ctx.probe ?? (await probeServer(entry, { ...ctx, lock }));
  /** A result that writes nothing: refused, or the surface is already pinned as it is. */
  const unwritten = (diagnostics: readonly Diagnostic[], pin?: ServerPin): PinResult => ({
    ok: pin !== undefined,
    server,
    probe,
    ...(pin !== undefined ? { pin } : {}),
    written: false,
    lockFile: lock.file,
    accepted: [],
    acceptedServer: [],
    added: [],
    removed: [],
    definitionChanges: [],
    diagnostics,
  });
  const refused = (diagnostics: readonly Diagnostic[]): PinResult => unwritten(diagnostics);
  if (!lock.usable) return refused(probe.diagnostics);
  const blocking = probe.diagnostics.filter(
    (d) => d.severity === 'error' && !ACCEPTED_BY_PIN.has(d.code),
  );
  if (blocking.length > 0 || !probe.launched) return refused(probe.diagnostics);

  const enabledTools = probe.tools.filter((t) => entry.definition.enabled_tools.includes(t.name));
  const definition = definitionIdentity(entry.definition, probe.commandPath);
  const pin: ServerPin = {
    server,
    pinnedAt: (ctx.now?.() ?? new Date()).toISOString(),
    transport: probe.transport,
    ...(probe.serverInfo !== undefined
      ? { serverName: probe.serverInfo.name, serverVersion: probe.serverInfo.version }
      : {}),
    ...(probe.protocolVersion !== undefined ? { protocolVersion: probe.protocolVersion } : {}),
    definitionDigest: identityDigest(definition),
    definition,
    offeredTools: [...new Set(probe.tools.map((t) => t.name))].sort((a, b) =>
      a < b ? -1 : a > b ? 1 : 0,
    ),
    tools: enabledTools
      .map(pinnedToolOf)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    ...(probe.surface !== undefined ? { surface: probe.surface } : {}),
    ...pinnedLease(probe, new Set(enabledTools.map((t) => t.name))),
  };
  const previous = ownValue(lock.lock.servers, server);
  const previousNames = new Set((previous?.tools ?? []).map((t) => t.name));
  const nowNames = new Set(pin.tools.map((t) => t.name));
  const added = [...nowNames].filter((n) => !previousNames.has(n));
  const removed = [...previousNames].filter((n) => !nowNames.has(n));
  const definitionChanges =
    previous === undefined ? [] : changesSincePin(entry, previous, probe.commandPath);
  const before = `${previous?.serverName ?? ''} ${previous?.serverVersion ?? ''}`.trim();
  const after = `${pin.serverName ?? ''} ${pin.serverVersion ?? ''}`.trim();
  const identity =
    previous?.serverName !== undefined && before !== after ? { before, after } : undefined;
  // broken lock entries are dropped when the lock is rewritten: still worth a warning
  const diagnostics = probe.diagnostics
    .filter((d) => !RESOLVED_BY_PIN.has(d.code))
    .map((d) => (d.code === 'lock-file-invalid' ? { ...d, severity: 'warning' as const } : d));

  if (previous !== undefined && sameServerPin(previous, pin))
    return unwritten(diagnostics, previous);
  // re-read just before writing so pins of other servers made meanwhile are kept
  const unusable = await updateLock(ctx.configDir, (latest) =>
    latest.usable
      ? { lock: withServerPin(latest.lock, pin), result: undefined }
      : { result: latest.diagnostics },
  );
  if (unusable !== undefined) return refused([...diagnostics, ...unusable]);
  return {
    ok: true,
    server,
    probe,
    pin,
    written: true,
    lockFile: lock.file,
    accepted: probe.drift,
    acceptedServer: probe.serverDrift,
    added: previous === undefined ? [] : added,
    removed,
    definitionChanges,
    ...(identity !== undefined ? { identity } : {}),
    diagnostics,
  };
}
