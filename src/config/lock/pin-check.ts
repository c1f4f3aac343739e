/**
 * Checks a registry entry against its pin in `tool-mcp.lock` without starting anything (pure):
 * a definition changed since the pin (`definition-drift`), a pin made before definitions were
 * recorded or before pins covered all a server says (`pin-incomplete`), names in `enabled_tools`
 * the pinned server does not offer (`tool-not-in-pin`, with a suggestion among the pinned names),
 * and an unversioned package a runner would fetch.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import { entryLocation } from '../registry/entry-location.js';
import type { RegistryEntry } from '../registry/types.js';
import { definitionIdentity, identityChanges, identityDigest } from './definition-identity.js';
import type { ServerPin } from './lock-format.js';
import { packageOf } from './package-spec.js';

/** Tool names the pin knows the server offers: all offered ones when recorded, else the pinned. */
export function pinnedToolNames(pin: ServerPin): readonly string[] {
  return pin.offeredTools ?? pin.tools.map((t) => t.name);
}

/** Phrases describing how `entry` differs from what was pinned (empty: unchanged or unknown). */
export function definitionChanges(
  entry: RegistryEntry,
  pin: ServerPin,
  commandPath: string | undefined,
): string[] {
  const current = definitionIdentity(entry.definition, commandPath);
  if (pin.definition !== undefined) return identityChanges(pin.definition, current);
  if (pin.definitionDigest !== undefined && pin.definitionDigest !== identityDigest(current)) {
    return ['the definition differs from the pinned digest'];
  }
  return [];
}

/** A warning for a stdio command that runs a package runner without a version. */
export function unversionedPackage(entry: RegistryEntry): Diagnostic | undefined {
  const definition = entry.definition;
  if (definition.transport !== 'stdio') return undefined;
  const pkg = packageOf(definition.command, definition.args ?? []);
  if (pkg === undefined || pkg.version !== undefined) return undefined;
  const example = pkg.ecosystem === 'npm' ? `${pkg.name}@1.2.3` : `${pkg.name}==1.2.3`;
  return diagnostic({
    severity: 'warning',
    code: 'package-version-unpinned',
    message: `server '${definition.id}' runs package ${pkg.name} through ${pkg.runner} without a version, so each start may fetch different code than the one you reviewed and pinned; write the version you reviewed (e.g. ${example})`,
    server: definition.id,
    ...entryLocation(entry, ['args']),
  });
}

/**
 * Every offline finding about `entry` against `pin` (undefined pin: nothing to compare). With
 * `toolNames` false only the definition is compared (a live probe judges the names itself).
 */
export function checkAgainstPin(
  entry: RegistryEntry,
  pin: ServerPin | undefined,
  commandPath: string | undefined,
  lockFile: string,
  toolNames = true,
): Diagnostic[] {
  if (pin === undefined) return [];
  const id = entry.definition.id;
  const out: Diagnostic[] = [];
  const changes = definitionChanges(entry, pin, commandPath);
  if (changes.length > 0) {
    out.push(
      diagnostic({
        code: 'definition-drift',
        message: `the definition of '${id}' changed since it was pinned: ${changes.join('; ')}. The pin vouches for the server that ran then, not this one; review the change, then run \`codex-mmo tool-mcp pin ${id}\` to accept it`,
        server: id,
        ...entryLocation(entry),
      }),
    );
  } else if (pin.definitionDigest === undefined) {
    out.push(
      diagnostic({
        severity: 'warning',
        code: 'pin-definition-missing',
        message: `the pin of '${id}' in ${lockFile} was made before pins recorded the server's definition, so a changed command, args, package or URL cannot be noticed; run \`codex-mmo tool-mcp pin ${id}\` to record it`,
        server: id,
        ...entryLocation(entry),
      }),
    );
  }
  if (pin.surface === undefined || pin.tools.some((t) => t.listedDigest === undefined)) {
    out.push(
      diagnostic({
        severity: 'warning',
        code: 'pin-incomplete',
        message: `the pin of '${id}' in ${lockFile} was made before pins covered the server's instructions, server info, every field of its tools (title, output schema, _meta, all annotations), resources and prompts, so a change to them is not noticed; run \`codex-mmo tool-mcp pin ${id}\` to record them`,
        server: id,
        ...entryLocation(entry),
      }),
    );
  }
  if (!toolNames) return out;
  const known = pinnedToolNames(pin);
  const pinned = new Set(pin.tools.map((t) => t.name));
  entry.definition.enabled_tools.forEach((tool, index) => {
    if (pinned.has(tool)) return;
    const where = entryLocation(entry, ['enabled_tools', index]);
    if (pin.offeredTools?.includes(tool) === true) {
      out.push(
        diagnostic({
          severity: 'warning',
          code: 'tool-not-pinned',
          message: `enabled tool '${tool}' of '${id}' was offered but not enabled when the server was pinned, so its surface is not pinned; run \`codex-mmo tool-mcp pin ${id}\` to pin it`,
          server: id,
          ...where,
        }),
      );
      return;
    }
    const guess = suggest(tool, known);
    const hint = guess !== undefined ? ` Did you mean '${guess}'?` : '';
    const shown = known.slice(0, 10).join(', ');
    const more = known.length > 10 ? `, and ${known.length - 10} more` : '';
    const list = known.length > 0 ? ` It offered: ${shown}${more}.` : '';
    out.push(
      diagnostic({
        severity: pin.offeredTools !== undefined ? 'error' : 'warning',
        code: pin.offeredTools !== undefined ? 'tool-not-in-pin' : 'tool-not-pinned',
        message: `enabled_tools names '${tool}', which '${id}' did not offer when it was pinned (${lockFile}); Codex would silently drop it.${hint}${list}`,
        server: id,
        ...where,
      }),
    );
  });
  return out;
}

/**
 * A `server-identity-changed` finding when the server now reports another name (error) or version
 * (warning) than when it was pinned.
 */
export function identityChange(
  entry: RegistryEntry,
  pin: ServerPin | undefined,
  info: { readonly name: string; readonly version: string } | undefined,
): Diagnostic | undefined {
  if (pin === undefined || info === undefined || pin.serverName === undefined) return undefined;
  const id = entry.definition.id;
  const before = `${pin.serverName} ${pin.serverVersion ?? ''}`.trim();
  const after = `${info.name} ${info.version}`.trim();
  if (before === after) return undefined;
  const renamed = pin.serverName !== info.name;
  return diagnostic({
    severity: renamed ? 'error' : 'warning',
    code: 'server-identity-changed',
    message: renamed
      ? `'${id}' now answers as ${after}, but was pinned as ${before}: a different server runs under this ID. Check its command and package; if this is intended, run \`codex-mmo tool-mcp pin ${id}\` to accept it`
      : `'${id}' now reports version ${info.version}; it was pinned at ${before}. Review what changed, then run \`codex-mmo tool-mcp pin ${id}\` to record it`,
    server: id,
    ...entryLocation(entry),
  });
}
