/**
 * Turns the environment and header values of an imported server into registry fields (pure): a
 * value that names a secret or looks like one becomes a variable name (`env_vars`,
 * `bearer_token_env_var`, `env_http_headers`) and its value a `MovedSecret`; a reference to an
 * environment variable (`${VAR}`) becomes that variable; only non-secret literals stay literal.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import {
  formatKeyPath,
  type KeyLocation,
  type KeyPath,
} from '../../foundation/toml/key-positions.js';
import { isCredentialName, isCredentialValue } from '../../config/registry/credential-patterns.js';
import {
  findCredentialLiterals,
  type KnownCredential,
} from '../../config/registry/credential-literals.js';
import { registryDiagnostic } from '../../config/registry/diagnostic-codes.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import type { FragmentTarget } from './fragment-text.js';
import type { MovedSecret } from './import-types.js';

/** A value as the source writes it. */
export type SourceValue =
  | { readonly kind: 'literal'; readonly value: string }
  /** `${VAR}` or `${VAR:-default}`: the value comes from the environment. */
  | { readonly kind: 'ref'; readonly variable: string; readonly default?: string }
  /** `Bearer ${VAR}` in an Authorization header. */
  | { readonly kind: 'bearer-ref'; readonly variable: string }
  /** A reference inside other text, which the registry cannot express. */
  | { readonly kind: 'embedded' };

/** Reports problems of one source entry at its key paths (positions looked up by the caller). */
export interface EntryReporter {
  /** `file`, `line`, `column` and `path` of a key path of the source. */
  at(path: KeyPath): KeyLocation;
  readonly server: string;
  readonly known: readonly KnownCredential[];
  readonly diagnostics: Diagnostic[];
}

const WHOLE_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;
const BEARER_REF = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Reads Claude Code's `${VAR}` / `${VAR:-default}` expansion in a value. */
export function expansionOf(value: string): SourceValue {
  const whole = WHOLE_REF.exec(value);
  if (whole?.[1] !== undefined) {
    return {
      kind: 'ref',
      variable: whole[1],
      ...(whole[2] !== undefined ? { default: whole[2] } : {}),
    };
  }
  const bearer = BEARER_REF.exec(value);
  if (bearer?.[1] !== undefined) return { kind: 'bearer-ref', variable: bearer[1] };
  return value.includes('${') ? { kind: 'embedded' } : { kind: 'literal', value };
}

/** Whether a literal is a secret: by its key's name, its shape, or a known credential's value. */
export function isSecretLiteral(
  name: string,
  value: string,
  known: readonly KnownCredential[],
): boolean {
  if (value === '') return false;
  return (
    isCredentialName(name) ||
    isCredentialValue(value) ||
    findCredentialLiterals(value, known).length > 0
  );
}

/** An environment variable name made of an ID and a suffix: `linear` + `TOKEN` → `LINEAR_TOKEN`. */
export function derivedVariable(id: string, suffix: string): string {
  const name = `${id}_${suffix}`.toUpperCase().replace(/[^A-Z0-9_]+/g, '_');
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

function embedded(reporter: EntryReporter, path: KeyPath): void {
  reporter.diagnostics.push(
    registryDiagnostic('import-expansion-unsupported', {
      message: `${formatKeyPath(path)} puts a \${VAR} reference inside other text; the registry passes variables whole (env_vars, env_http_headers, bearer_token_env_var) and never expands them in commands, arguments, URLs or values. Make the server read the variable from its environment, or write the value without the reference`,
      ...reporter.at(path),
      server: reporter.server,
    }),
  );
}

/** The stdio environment of an entry, split into literal values, variable names and secrets. */
export interface EnvFields {
  readonly env: Record<string, string>;
  readonly envVars: string[];
  readonly secrets: MovedSecret[];
  readonly referenced: string[];
}

export function envFields(
  values: Readonly<Record<string, SourceValue>>,
  base: KeyPath,
  reporter: EntryReporter,
): EnvFields {
  const out: EnvFields = { env: {}, envVars: [], secrets: [], referenced: [] };
  for (const [key, value] of Object.entries(values)) {
    const path = [...base, key];
    if (value.kind === 'embedded' || value.kind === 'bearer-ref') {
      embedded(reporter, path);
      continue;
    }
    if (value.kind === 'literal') {
      if (isSecretLiteral(key, value.value, reporter.known)) {
        out.envVars.push(key);
        out.secrets.push({ name: key, from: formatKeyPath(path), value: value.value });
      } else if (value.value === '' && isCredentialName(key)) {
        out.envVars.push(key);
        out.referenced.push(key);
      } else out.env[key] = value.value;
      continue;
    }
    // a reference: the server reads `key`, the source filled it from `variable`
    if (value.variable !== key) {
      reporter.diagnostics.push(
        registryDiagnostic('import-variable-renamed', {
          message: `${formatKeyPath(path)} takes its value from \${${value.variable}}, but the registry forwards a variable under its own name: the server gets ${key}, so set ${key} (not ${value.variable}) in credentials.env or the launch environment`,
          ...reporter.at(path),
          server: reporter.server,
        }),
      );
    }
    const fallback = value.default;
    if (fallback !== undefined && fallback !== '') {
      if (isSecretLiteral(key, fallback, reporter.known)) {
        out.envVars.push(key);
        out.secrets.push({ name: key, from: formatKeyPath(path), value: fallback });
        continue;
      }
      out.env[key] = fallback;
      reporter.diagnostics.push(
        registryDiagnostic('import-default-kept', {
          message: `${formatKeyPath(path)} is \${${value.variable}:-…}: the fragment keeps its default as the literal value of ${key}, and the environment no longer overrides it. To let the environment decide, move ${key} from env to env_vars`,
          ...reporter.at(path),
          server: reporter.server,
        }),
      );
      continue;
    }
    out.envVars.push(key);
    out.referenced.push(key);
  }
  return out;
}

/** The HTTP headers of an entry, split into literal headers, variable headers, a bearer token. */
export interface HeaderFields {
  readonly headers: Record<string, string>;
  readonly headerEnv: Record<string, string>;
  bearer?: string;
  readonly secrets: MovedSecret[];
  readonly referenced: string[];
}

export function headerFields(
  id: string,
  values: Readonly<Record<string, SourceValue>>,
  base: KeyPath,
  reporter: EntryReporter,
): HeaderFields {
  const out: HeaderFields = { headers: {}, headerEnv: {}, secrets: [], referenced: [] };
  const isAuthorization = (header: string): boolean => header.toLowerCase() === 'authorization';
  for (const [header, value] of Object.entries(values)) {
    const path = [...base, header];
    switch (value.kind) {
      case 'embedded':
        embedded(reporter, path);
        break;
      case 'bearer-ref':
        if (isAuthorization(header)) {
          out.bearer = value.variable;
          out.referenced.push(value.variable);
        } else embedded(reporter, path);
        break;
      case 'ref': {
        const fallback = value.default;
        out.headerEnv[header] = value.variable;
        if (fallback !== undefined && fallback !== '') {
          if (isSecretLiteral(header, fallback, reporter.known)) {
            out.secrets.push({ name: value.variable, from: formatKeyPath(path), value: fallback });
            break;
          }
          reporter.diagnostics.push(
            registryDiagnostic('import-default-kept', {
              message: `${formatKeyPath(path)} is \${${value.variable}:-…}: the registry has no defaults, so the header's value comes from ${value.variable} alone; set it in credentials.env or the launch environment`,
              ...reporter.at(path),
              server: reporter.server,
            }),
          );
        }
        out.referenced.push(value.variable);
        break;
      }
      case 'literal': {
        if (!isSecretLiteral(header, value.value, reporter.known)) {
          out.headers[header] = value.value;
          break;
        }
        const bearer = /^Bearer\s+(\S.*)$/i.exec(value.value);
        if (isAuthorization(header) && bearer?.[1] !== undefined && out.bearer === undefined) {
          out.bearer = derivedVariable(id, 'TOKEN');
          out.secrets.push({ name: out.bearer, from: formatKeyPath(path), value: bearer[1] });
          break;
        }
        const variable = derivedVariable(id, header);
        out.headerEnv[header] = variable;
        out.secrets.push({ name: variable, from: formatKeyPath(path), value: value.value });
        break;
      }
    }
  }
  return out;
}

/** `import-expansion-unsupported` for a `${…}` in a command, argument, cwd or URL. */
export function refuseExpansion(text: string, path: KeyPath, reporter: EntryReporter): boolean {
  if (!text.includes('${')) return false;
  embedded(reporter, path);
  return true;
}

/** A diagnostic about one key of a source entry. */
export function entryDiagnostic(
  reporter: EntryReporter,
  code: Parameters<typeof registryDiagnostic>[0],
  path: KeyPath,
  message: string,
): void {
  reporter.diagnostics.push(
    registryDiagnostic(code, { message, ...reporter.at(path), server: reporter.server }),
  );
}

/** The registry target of a Streamable HTTP entry at `url` with its header fields. */
export function httpTarget(url: string, headers: HeaderFields): FragmentTarget {
  return {
    transport: 'streamable_http',
    url,
    ...(headers.bearer !== undefined ? { bearerTokenEnvVar: headers.bearer } : {}),
    headerEnv: headers.headerEnv,
    ...(Object.keys(headers.headers).length > 0 ? { headers: headers.headers } : {}),
  };
}

/** `import-unknown-field` for a key of server `name` that import does not know. */
export function unknownKey(
  reporter: EntryReporter,
  path: KeyPath,
  name: string,
  key: string,
  known: readonly string[],
): void {
  const near = suggest(key, known);
  entryDiagnostic(
    reporter,
    'import-unknown-field',
    path,
    `server '${name}' has a key '${key}' that import does not know${near !== undefined ? ` (did you mean '${near}'?)` : ''}; remove it, or add the server by hand with \`codex-mmo tool-mcp add\``,
  );
}
