/**
 * Literal values on the `tool-mcp add` command line that look like credentials: an `-e KEY=VALUE`
 * or `-H 'Name: value'` whose name or value has a credential's shape. Each is refused with the
 * spelling that passes it through a variable instead; the value itself is never reported.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { formatKeyPath } from '../../foundation/toml/key-positions.js';
import { isCredentialName, isCredentialValue } from '../../config/registry/credential-patterns.js';
import type { FragmentTarget } from './fragment-text.js';

/** A variable name to suggest for a literal named `name`. */
function variableFor(name: string): string {
  const upper = name.toUpperCase().replace(/[^A-Z0-9_]+/g, '_');
  return /^[A-Z_][A-Z0-9_]*$/.test(upper) ? upper : 'VAR';
}

/**
 * The refusals of secret-looking literals in `target`, and the key paths they cover (the
 * registry validator's own `credential-literal-*` diagnostics at those paths say the same).
 */
export function literalSecrets(
  id: string,
  target: FragmentTarget,
  file: string,
): { readonly diagnostics: Diagnostic[]; readonly paths: ReadonlySet<string> } {
  const diagnostics: Diagnostic[] = [];
  const paths = new Set<string>();
  const literals =
    target.transport === 'stdio'
      ? Object.entries(target.env ?? {}).map(([name, value]) => ({ name, value, field: 'env' }))
      : Object.entries(target.headers ?? {}).map(([name, value]) => ({
          name,
          value,
          field: 'http_headers',
        }));
  for (const { name, value, field } of literals) {
    if (!isCredentialName(name) && !isCredentialValue(value)) continue;
    const path = formatKeyPath(['tool_mcp_servers', id, field, name]);
    paths.add(path);
    // a name with a credential's shape is not repeated either
    const shown = isCredentialValue(name) ? 'NAME' : name;
    const variable = shown === 'NAME' ? 'VAR' : variableFor(name);
    const how =
      field === 'env'
        ? `pass \`-e ${variable}\` instead (the server gets ${variable} from the environment) and put ${variable}=… in credentials.env`
        : name.toLowerCase() === 'authorization'
          ? `pass \`-H 'Authorization: Bearer $${variable}'\` (or --bearer-token-env-var ${variable}) instead and put ${variable}=… in credentials.env`
          : `pass \`-H '${shown}: $${variable}'\` instead and put ${variable}=… in credentials.env`;
    diagnostics.push(
      diagnostic({
        code: 'add-literal-secret',
        message: `the literal ${field === 'env' ? 'environment value' : 'header'} ${shown} looks like a credential, and the registry never stores secrets; ${how}`,
        file,
        ...(shown === name ? { path } : {}),
        server: id,
      }),
    );
  }
  return { diagnostics, paths };
}
