/**
 * Whether a session can enforce native-role grants on the model wire (pure): the configured
 * provider must be one the wire can front, and the Codex version one of the supported series on
 * which the wire's narrowing was measured. Otherwise the reason, for `doctor` to say.
 */
import { classifyCodexVersion, supportedSeriesText } from '../../config/codex/codex-versions.js';
import type { NativeEnforcement } from '../../config/profile/native-isolation.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import { providerRoute } from '../../config/compile/provider-route.js';

export function wireEnforcement(
  base: TomlTable,
  codexVersion: string | undefined,
): NativeEnforcement {
  const route = providerRoute(base);
  if (route.kind === 'unfrontable') {
    return { narrows: false, reason: `the model wire cannot front the provider: ${route.reason}` };
  }
  if (codexVersion === undefined) {
    return { narrows: false, reason: 'no working Codex was found to check its version' };
  }
  const version = classifyCodexVersion(codexVersion);
  if (!version.supported || !version.facts.modelWireNarrows) {
    return {
      narrows: false,
      reason: `the model wire was measured on Codex ${supportedSeriesText()} only, not on ${codexVersion}`,
    };
  }
  return { narrows: true };
}
