/**
 * The package a stdio command runs when it is a package runner (pure): `npx`, `npm exec`,
 * `pnpm dlx`, `bunx` and `yarn dlx` name an npm package, `uvx` and `pipx run` a Python one. The
 * version written with it (`pkg@1.2.3`, `pkg==1.2`) is part of a pin's identity; a package
 * without a version runs whatever its registry serves today.
 */
import { basename } from 'node:path';

export interface PackageSpec {
  readonly ecosystem: 'npm' | 'pypi';
  /** How the runner was written, e.g. `npx` or `uvx`. */
  readonly runner: string;
  /** The argument naming the package, as written. */
  readonly spec: string;
  readonly name: string;
  /** The version or range written with it; absent when the package is unversioned. */
  readonly version?: string;
}

/** Options of the npm runners that take a value (so the value is not the package). */
const NPM_VALUE_OPTIONS = new Set(['--package', '-p', '--cache', '--registry', '--userconfig']);
/** Options of uvx / pipx that take a value. */
const PY_VALUE_OPTIONS = new Set([
  '--from',
  '--with',
  '--python',
  '-p',
  '--index-url',
  '--index',
  '--spec',
]);

function npmSpec(spec: string, runner: string): PackageSpec {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  if (at <= 0) return { ecosystem: 'npm', runner, spec, name: spec };
  const version = spec.slice(at + 1);
  return {
    ecosystem: 'npm',
    runner,
    spec,
    name: spec.slice(0, at),
    ...(version !== '' && version !== 'latest' ? { version } : {}),
  };
}

function pySpec(spec: string, runner: string): PackageSpec {
  const match = /^([A-Za-z0-9._-]+(?:\[[^\]]*\])?)\s*(==|~=|>=|<=|===|@)\s*(.+)$/.exec(spec);
  if (match === null) return { ecosystem: 'pypi', runner, spec, name: spec };
  const version = (match[3] ?? '').trim();
  return {
    ecosystem: 'pypi',
    runner,
    spec,
    name: match[1] ?? spec,
    ...(version !== '' && version !== 'latest' ? { version: `${match[2] ?? ''}${version}` } : {}),
  };
}

/** The first argument that is neither an option nor an option's value, and the explicit one. */
function packageArgument(
  args: readonly string[],
  valueOptions: ReadonlySet<string>,
  explicit: readonly string[],
): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') return args[i + 1];
    for (const name of explicit) {
      if (arg === name) return args[i + 1];
      if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
    }
    if (arg.startsWith('-')) {
      if (valueOptions.has(arg)) i++;
      continue;
    }
    return arg;
  }
  return undefined;
}

/** The package `command args` runs, when the command is a known package runner. */
export function packageOf(command: string, args: readonly string[]): PackageSpec | undefined {
  const name = basename(command);
  let runner = name;
  let rest = args;
  if ((name === 'npm' && args[0] === 'exec') || (name === 'pnpm' && args[0] === 'dlx')) {
    runner = `${name} ${args[0]}`;
    rest = args.slice(1);
  } else if (name === 'yarn' && args[0] === 'dlx') {
    runner = 'yarn dlx';
    rest = args.slice(1);
  } else if (name === 'pipx' && args[0] === 'run') {
    const spec = packageArgument(args.slice(1), PY_VALUE_OPTIONS, ['--spec']);
    return spec === undefined ? undefined : pySpec(spec, 'pipx run');
  } else if (name === 'uvx' || (name === 'uv' && args[0] === 'tool' && args[1] === 'run')) {
    const spec = packageArgument(name === 'uv' ? args.slice(2) : args, PY_VALUE_OPTIONS, [
      '--from',
    ]);
    return spec === undefined ? undefined : pySpec(spec, name === 'uv' ? 'uv tool run' : 'uvx');
  } else if (name !== 'npx' && name !== 'bunx') {
    return undefined;
  }
  const spec = packageArgument(rest, NPM_VALUE_OPTIONS, ['--package', '-p']);
  return spec === undefined ? undefined : npmSpec(spec, runner);
}

/** `name version` or `name (no version)` for messages. */
export function describePackage(spec: PackageSpec): string {
  return spec.version !== undefined ? `${spec.name} ${spec.version}` : `${spec.name} (no version)`;
}
