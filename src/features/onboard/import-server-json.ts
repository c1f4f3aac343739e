/**
 * Reads an MCP registry `server.json` (pure): each npm, PyPI or OCI package run over stdio becomes
 * an `npx`/`uvx`/`docker run` command, each Streamable HTTP remote a URL with its headers. Secret
 * variables and headers (`isSecret`) become variable names. Schema 2025-07-09 (snake_case fields
 * too) and the camelCase versions from 2025-09-16 on are read; any other `$schema` is refused.
 */
import { keyLocation, type KeyPath } from '../../foundation/toml/key-positions.js';
import { isCredentialName } from '../../config/registry/credential-patterns.js';
import type { KnownCredential } from '../../config/registry/credential-literals.js';
import { registryDiagnostic } from '../../config/registry/diagnostic-codes.js';
import { SERVER_ID_PATTERN } from '../../config/registry/types.js';
import type { FragmentTarget } from './fragment-text.js';
import { secretArguments } from './import-arguments.js';
import {
  derivedVariable,
  entryDiagnostic,
  envFields,
  headerFields,
  httpTarget,
  type EntryReporter,
  type SourceValue,
} from './import-literals.js';
import type { ImportCandidate, MovedSecret, ParsedImportFile } from './import-types.js';
import { parseJsonDocument } from './json-document.js';

/** Schema dates import reads; 2025-07-09 documents were written in snake_case, later ones not. */
export const SERVER_JSON_SCHEMAS = [
  '2025-07-09',
  '2025-09-16',
  '2025-09-29',
  '2025-10-17',
  '2025-12-11',
] as const;

/** The `$schema` this product writes on export. */
export const SERVER_JSON_SCHEMA_URL =
  'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json';

const SCHEMA_DATE = /\/schemas\/(?:draft\/)?(\d{4}-\d{2}-\d{2})\/server(?:\.schema)?\.json$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SNAKE: Record<string, readonly string[]> = {
  registryType: ['registry_type', 'registry_name'],
  identifier: ['name'],
  runtimeHint: ['runtime_hint'],
  runtimeArguments: ['runtime_arguments'],
  packageArguments: ['package_arguments'],
  environmentVariables: ['environment_variables'],
  isSecret: ['is_secret'],
  isRequired: ['is_required'],
  valueHint: ['value_hint'],
};

/** Reads a field by its camelCase name (and, for 2025-07-09 documents, its older spellings). */
function field(object: Json, name: string, legacy: boolean): unknown {
  if (object[name] !== undefined) return object[name];
  if (!legacy) return undefined;
  for (const alias of SNAKE[name] ?? []) if (object[alias] !== undefined) return object[alias];
  return undefined;
}

/** The registry ID a server.json name suggests: its last segment, lower-cased. */
export function idFromName(name: string): string {
  const last = name.split('/').pop() ?? name;
  const id = last
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 64);
  return SERVER_ID_PATTERN.test(id) ? id : 'server';
}

const DEFAULT_RUNTIME: Record<string, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker' };

/** `{name}` placeholders of a value. */
function placeholders(value: string): string[] {
  return [...value.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] ?? '');
}

interface Reading {
  readonly legacy: boolean;
  readonly reporter: EntryReporter;
  readonly id: string;
}

/** The command-line words of a list of runtime or package arguments. */
function argumentWords(list: unknown, base: KeyPath, reading: Reading): string[] {
  const { reporter, legacy } = reading;
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    entryDiagnostic(reporter, 'import-invalid-entry', base, 'arguments must be an array');
    return [];
  }
  const words: string[] = [];
  list.forEach((arg, index) => {
    const path = [...base, index];
    if (!isObject(arg)) {
      entryDiagnostic(reporter, 'import-invalid-entry', path, 'an argument must be an object');
      return;
    }
    const value =
      typeof arg.value === 'string'
        ? arg.value
        : typeof arg.default === 'string'
          ? arg.default
          : undefined;
    const required = field(arg, 'isRequired', legacy) === true;
    const hint = field(arg, 'valueHint', legacy);
    const name = typeof arg.name === 'string' ? arg.name : undefined;
    if (field(arg, 'isSecret', legacy) === true) {
      entryDiagnostic(
        reporter,
        'import-secret-argument',
        path,
        `argument ${index + 1} of server '${reporter.server}' is a secret passed on the command line, where the registry would store and show it; run the server with the secret in an environment variable instead (env_vars, value in credentials.env)`,
      );
      return;
    }
    if (value !== undefined && placeholders(value).length > 0) {
      entryDiagnostic(
        reporter,
        'import-argument-needs-value',
        path,
        `argument ${index + 1} of server '${reporter.server}' is filled from {${placeholders(value).join('}, {')}}, which the registry cannot fill in; add the server with \`codex-mmo tool-mcp add\` and write the argument's value`,
      );
      return;
    }
    if (arg.type === 'named') {
      if (name === undefined) {
        entryDiagnostic(reporter, 'import-invalid-entry', path, 'a named argument needs a name');
        return;
      }
      if (value !== undefined) words.push(name, value);
      else if (hint === undefined && arg.format === undefined) words.push(name);
      else if (required) {
        entryDiagnostic(
          reporter,
          'import-argument-needs-value',
          path,
          `argument ${name} of server '${reporter.server}' is required but has no value in the file; add the server with \`codex-mmo tool-mcp add\` and write its value`,
        );
      } else {
        entryDiagnostic(
          reporter,
          'import-field-ignored',
          path,
          `optional argument ${name} of server '${reporter.server}' has no value and is left out`,
        );
      }
      return;
    }
    if (value !== undefined) words.push(value);
    else if (required) {
      entryDiagnostic(
        reporter,
        'import-argument-needs-value',
        path,
        `positional argument ${index + 1} of server '${reporter.server}' is required but has no value in the file${typeof hint === 'string' ? ` (${hint})` : ''}; add the server with \`codex-mmo tool-mcp add\` and write its value`,
      );
    } else {
      entryDiagnostic(
        reporter,
        'import-field-ignored',
        path,
        `optional positional argument ${index + 1} of server '${reporter.server}' has no value and is left out`,
      );
    }
  });
  return words;
}

/** A variable name from a `{placeholder}`: kept when it is written like one, else derived. */
function variableOf(id: string, placeholder: string): string {
  return /^[A-Z_][A-Z0-9_]*$/.test(placeholder) ? placeholder : derivedVariable(id, placeholder);
}

/** `environmentVariables` or remote `headers` as source values keyed by name. */
function inputs(
  list: unknown,
  base: KeyPath,
  reading: Reading,
  header: boolean,
): { values: Record<string, SourceValue>; secrets: MovedSecret[] } {
  const { reporter, legacy, id } = reading;
  const values: Record<string, SourceValue> = {};
  const secrets: MovedSecret[] = [];
  if (list === undefined) return { values, secrets };
  if (!Array.isArray(list)) {
    entryDiagnostic(reporter, 'import-invalid-entry', base, 'this must be an array');
    return { values, secrets };
  }
  list.forEach((input, index) => {
    const path = [...base, index];
    if (!isObject(input) || typeof input.name !== 'string' || input.name === '') {
      entryDiagnostic(reporter, 'import-invalid-entry', path, 'each entry needs a "name" string');
      return;
    }
    const name = input.name;
    const raw =
      typeof input.value === 'string'
        ? input.value
        : typeof input.default === 'string'
          ? input.default
          : undefined;
    const secret = field(input, 'isSecret', legacy) === true || isCredentialName(name);
    const own = header ? derivedVariable(id, name) : name;
    if (raw === undefined || raw === '') {
      values[name] = { kind: 'ref', variable: own };
      return;
    }
    const whole = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(raw);
    const bearer = /^Bearer \{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(raw);
    if (whole?.[1] !== undefined) {
      values[name] = { kind: 'ref', variable: header ? variableOf(id, whole[1]) : name };
    } else if (bearer?.[1] !== undefined && header) {
      values[name] = { kind: 'bearer-ref', variable: variableOf(id, bearer[1]) };
    } else if (placeholders(raw).length > 0) {
      entryDiagnostic(
        reporter,
        'import-argument-needs-value',
        path,
        `${name} of server '${reporter.server}' is built from {${placeholders(raw).join('}, {')}} inside other text, which the registry cannot fill in; add the server with \`codex-mmo tool-mcp add\``,
      );
    } else if (secret) {
      // a secret written in the file: the variable holds it, the value moves
      values[name] = { kind: 'ref', variable: own };
      secrets.push({ name: own, from: `${base.join('.')}[${String(index)}]`, value: raw });
    } else values[name] = { kind: 'literal', value: raw };
  });
  return { values, secrets };
}

function packageCandidate(
  pkg: unknown,
  base: KeyPath,
  reading: Reading,
): Omit<ImportCandidate, 'source' | 'name' | 'id'> {
  const { reporter, legacy } = reading;
  const empty = { secrets: [], referenced: [], diagnostics: reporter.diagnostics };
  if (!isObject(pkg)) {
    entryDiagnostic(reporter, 'import-invalid-entry', base, 'a package must be an object');
    return empty;
  }
  const type = field(pkg, 'registryType', legacy);
  const identifier = field(pkg, 'identifier', legacy);
  const version = typeof pkg.version === 'string' ? pkg.version : undefined;
  const transport = isObject(pkg.transport) ? pkg.transport.type : undefined;
  if (typeof type !== 'string' || !(type in DEFAULT_RUNTIME)) {
    entryDiagnostic(
      reporter,
      'import-unsupported-transport',
      [...base, 'registryType'],
      `package ${typeof identifier === 'string' ? identifier : ''} of server '${reporter.server}' is a ${typeof type === 'string' ? type : 'package of no known registry'} package; import runs npm (npx), PyPI (uvx) and OCI (docker) packages. Install it yourself and add its command with \`codex-mmo tool-mcp add\``,
    );
    return empty;
  }
  if (transport !== undefined && transport !== 'stdio') {
    entryDiagnostic(
      reporter,
      'import-unsupported-transport',
      [...base, 'transport'],
      `package of server '${reporter.server}' serves ${JSON.stringify(transport)} itself, and the registry starts only stdio servers; start it yourself and add its URL with \`codex-mmo tool-mcp add ID --url URL\``,
    );
    return empty;
  }
  if (typeof identifier !== 'string' || identifier === '') {
    entryDiagnostic(reporter, 'import-invalid-entry', base, 'the package has no identifier');
    return empty;
  }
  const hint = field(pkg, 'runtimeHint', legacy);
  const command = typeof hint === 'string' && hint !== '' ? hint : (DEFAULT_RUNTIME[type] ?? 'npx');
  const runtimeArgs = argumentWords(
    field(pkg, 'runtimeArguments', legacy),
    [...base, 'runtimeArguments'],
    reading,
  );
  const packageArgs = argumentWords(
    field(pkg, 'packageArguments', legacy),
    [...base, 'packageArguments'],
    reading,
  );
  const vars = inputs(
    field(pkg, 'environmentVariables', legacy),
    [...base, 'environmentVariables'],
    reading,
    false,
  );
  const env = envFields(vars.values, [...base, 'environmentVariables'], reporter);
  const forwarded = [...Object.keys(env.env), ...env.envVars];
  let args: string[];
  if (type === 'oci') {
    const image =
      version !== undefined && !/:[^/]+$/.test(identifier)
        ? `${identifier}:${version}`
        : identifier;
    const own = runtimeArgs.length > 0 ? runtimeArgs : ['-i', '--rm'];
    args = ['run', ...own, ...forwarded.flatMap((n) => ['-e', n]), image, ...packageArgs];
  } else {
    const spec =
      version === undefined
        ? identifier
        : type === 'pypi'
          ? `${identifier}==${version}`
          : `${identifier}@${version}`;
    const own = runtimeArgs.length > 0 || command !== 'npx' ? runtimeArgs : ['-y'];
    args = [...own, spec, ...packageArgs];
  }
  secretArguments(args, [...base, 'packageArguments'], reporter);
  const target: FragmentTarget = {
    transport: 'stdio',
    command,
    args,
    envVars: env.envVars,
    ...(Object.keys(env.env).length > 0 ? { env: env.env } : {}),
  };
  return {
    ...empty,
    target,
    secrets: [...env.secrets, ...vars.secrets],
    referenced: env.referenced,
  };
}

function remoteCandidate(
  remote: unknown,
  base: KeyPath,
  reading: Reading,
): Omit<ImportCandidate, 'source' | 'name' | 'id'> {
  const { reporter } = reading;
  const empty = { secrets: [], referenced: [], diagnostics: reporter.diagnostics };
  if (!isObject(remote)) {
    entryDiagnostic(reporter, 'import-invalid-entry', base, 'a remote must be an object');
    return empty;
  }
  const type = remote.type ?? remote.transport_type;
  const url = remote.url;
  if (type === 'sse') {
    entryDiagnostic(
      reporter,
      'import-unsupported-transport',
      [...base, 'type'],
      `this remote of server '${reporter.server}' uses the SSE transport, which MCP replaced by Streamable HTTP and the registry does not run; use its streamable-http remote if it has one`,
    );
    return empty;
  }
  if (type !== 'streamable-http' || typeof url !== 'string') {
    entryDiagnostic(
      reporter,
      'import-invalid-entry',
      base,
      'a remote needs "type": "streamable-http" and a "url" string',
    );
    return empty;
  }
  if (placeholders(url).length > 0) {
    entryDiagnostic(
      reporter,
      'import-argument-needs-value',
      [...base, 'url'],
      `the URL of server '${reporter.server}' is filled from {${placeholders(url).join('}, {')}}; add it with \`codex-mmo tool-mcp add ID --url URL\` and the real URL`,
    );
    return empty;
  }
  const read = inputs(remote.headers, [...base, 'headers'], reading, true);
  const headers = headerFields(reading.id, read.values, [...base, 'headers'], reporter);
  const target = httpTarget(url, headers);
  return {
    ...empty,
    target,
    secrets: [...headers.secrets, ...read.secrets],
    referenced: headers.referenced,
  };
}

/** The servers a `server.json` (or a registry API answer `{"server": {...}}`) offers. */
export function parseServerJson(
  text: string,
  file: string,
  known: readonly KnownCredential[],
): ParsedImportFile {
  const parsed = parseJsonDocument(text, file);
  const result = (
    candidates: ImportCandidate[],
    diagnostics: ParsedImportFile['diagnostics'],
  ): ParsedImportFile => ({
    format: 'server-json',
    file,
    candidates,
    diagnostics,
  });
  if (!parsed.ok) return result([], parsed.diagnostics);
  const wrapped = isObject(parsed.value) && isObject(parsed.value.server);
  const doc: unknown = wrapped && isObject(parsed.value) ? parsed.value.server : parsed.value;
  const root: KeyPath = wrapped ? ['server'] : [];
  if (!isObject(doc)) {
    return result(
      [],
      [
        registryDiagnostic('import-invalid-entry', {
          message: 'a server.json is a JSON object',
          file,
        }),
      ],
    );
  }
  const schema = doc.$schema;
  const date = typeof schema === 'string' ? SCHEMA_DATE.exec(schema)?.[1] : undefined;
  if (date === undefined || !(SERVER_JSON_SCHEMAS as readonly string[]).includes(date)) {
    return result(
      [],
      [
        registryDiagnostic('import-schema-unknown', {
          message:
            typeof schema === 'string'
              ? `$schema ${JSON.stringify(schema.slice(0, 200))} is not a server.json schema version import knows (${SERVER_JSON_SCHEMAS.join(', ')}); its fields may mean something else. Convert the file to one of them, or add the server with \`codex-mmo tool-mcp add\``
              : `the file has no "$schema", so its server.json version is unknown; add the "$schema" URL it was written for (import knows ${SERVER_JSON_SCHEMAS.join(', ')})`,
          ...keyLocation(file, parsed.positions, [...root, '$schema']),
        }),
      ],
    );
  }
  const legacy = date === '2025-07-09';
  const name = typeof doc.name === 'string' ? doc.name : 'server';
  const baseId = idFromName(name);
  const packages = Array.isArray(doc.packages) ? doc.packages : [];
  const remotes = Array.isArray(doc.remotes) ? doc.remotes : [];
  const several = packages.length + remotes.length > 1;
  const candidates: ImportCandidate[] = [];
  const used = new Set<string>();
  const idFor = (suffix: string): string => {
    let id = several ? `${baseId}-${suffix}`.slice(0, 64) : baseId;
    for (let n = 2; used.has(id); n++) id = `${baseId}-${suffix}-${String(n)}`.slice(0, 64);
    used.add(id);
    return id;
  };
  const build = (
    base: KeyPath,
    suffix: string,
    make: (reading: Reading) => Omit<ImportCandidate, 'source' | 'name' | 'id'>,
  ): void => {
    const id = idFor(suffix);
    const reporter: EntryReporter = {
      at: (path) => keyLocation(file, parsed.positions, path),
      server: id,
      known,
      diagnostics: [],
    };
    const at = keyLocation(file, parsed.positions, base);
    candidates.push({ ...make({ legacy, reporter, id }), name, id, source: { ...at, file } });
  };
  packages.forEach((pkg, index) => {
    const type = isObject(pkg) ? field(pkg, 'registryType', legacy) : undefined;
    build([...root, 'packages', index], typeof type === 'string' ? type : 'package', (r) =>
      packageCandidate(pkg, [...root, 'packages', index], r),
    );
  });
  remotes.forEach((remote, index) => {
    build([...root, 'remotes', index], 'remote', (r) =>
      remoteCandidate(remote, [...root, 'remotes', index], r),
    );
  });
  const diagnostics =
    candidates.length === 0
      ? [
          registryDiagnostic('import-no-servers', {
            message: 'the server.json has no "packages" and no "remotes"; nothing to import',
            file,
          }),
        ]
      : [];
  return result(candidates, diagnostics);
}
