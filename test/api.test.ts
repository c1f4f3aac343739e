/**
 * The library API: the exact set of names `src/index.ts` exports (types included) is pinned, each
 * area index holds only names the CLI or the API takes, the
 * built entry point the package's `exports` names loads without side effects (no output, no
 * process listeners, nothing keeping the process alive), and the library example of docs/library.md runs
 * against it as a user would write it, importing `codex-mmo`.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { tmpDir } from './support/tmp.js';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '..');

const API_NAMES = [
  'ApprovalMode',
  'CodeInfo',
  'CodexMmoError',
  'CodexMmoErrorCode',
  'CompileRequest',
  'CompileResult',
  'Diagnostic',
  'Directories',
  'DirectoryOverrides',
  'DoctorReport',
  'Environment',
  'IntegrityError',
  'IoError',
  'LoadedCredentials',
  'MeshLaunch',
  'PROBE_CODES',
  'PROFILE_DIAGNOSTIC_CODES',
  'PROFILE_SCHEMA_VERSION',
  'PinContext',
  'PinResult',
  'ProbeCode',
  'ProbeCodeInfo',
  'ProbeContext',
  'ProbeResult',
  'ProcessError',
  'ProfileData',
  'ProfilePack',
  'REGISTRY_CODES',
  'REGISTRY_SCHEMA_VERSION',
  'Registry',
  'RegistryCode',
  'RegistryEntry',
  'RegistryValidation',
  'RenderOptions',
  'RenderedHome',
  'ResolvedPlan',
  'ResolvedPlanJson',
  'ServerDefinition',
  'SessionEvent',
  'SessionRecord',
  'SessionStatus',
  'Severity',
  'Snapshot',
  'StartSessionRequest',
  'StartSessionResult',
  'StopResult',
  'StoredSnapshot',
  'VERSION',
  'compileProfile',
  'configFiles',
  'describeError',
  'doctorProfile',
  'formatDiagnostic',
  'formatEvent',
  'fragmentJsonSchema',
  'hasErrors',
  'installPack',
  'listPacks',
  'listSessionRecords',
  'listSnapshots',
  'loadCredentials',
  'loadRegistry',
  'locateSession',
  'maskSecrets',
  'openPack',
  'pinServer',
  'planOfSnapshot',
  'planToJson',
  'probeServer',
  'readEvents',
  'readSessionRecord',
  'readSnapshot',
  'renderAll',
  'renderProcess',
  'resolveDirectories',
  'resolvePack',
  'resolvePlan',
  'smokeProfile',
  'sortDiagnostics',
  'startSession',
  'stopSession',
  'summarize',
  'validateRegistry',
  'writeRenderedHome',
];

/**
 * The names a module exports, read from its text: it may only hold named re-exports (no
 * `export *`, no declarations), so what it says is all it exports; the type checker proves each
 * name exists.
 */
async function exportedNames(file: string): Promise<string[]> {
  const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) throw new Error(`${file} holds more than re-exports`);
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause)) throw new Error('export * is refused');
    for (const element of clause.elements) names.push(element.name.text);
  }
  return names.sort();
}

/** Every area index under `src/` (each `index.ts` below the top-level one), repository-relative. */
function areaIndexes(): string[] {
  return readdirSync(join(REPO, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('/index.ts'))
    .map((file) => `src/${file}`)
    .sort();
}

/** The names the CLI and `src/index.ts` import or re-export from each area index. */
async function namesTakenFromIndexes(): Promise<Map<string, Set<string>>> {
  const files = readdirSync(join(REPO, 'src/cli'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `src/cli/${file}`);
  const taken = new Map<string, Set<string>>();
  for (const file of [...files, 'src/index.ts']) {
    const text = await readFile(join(REPO, file), 'utf8');
    for (const m of text.matchAll(
      /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g,
    )) {
      const target = normalize(join(dirname(file), m[2] ?? '')).replace(/\.js$/, '.ts');
      const names = (m[1] ?? '').split(',').map((n) => n.trim().replace(/^type /, ''));
      const set = taken.get(target) ?? new Set<string>();
      for (const name of names) if (name !== '') set.add(name);
      taken.set(target, set);
    }
    for (const m of text.matchAll(/import\('([^']+)'\)\s*\)\.(\w+)/g)) {
      const target = normalize(join(dirname(file), m[1] ?? '')).replace(/\.js$/, '.ts');
      taken.set(target, new Set([...(taken.get(target) ?? []), m[2] ?? '']));
    }
  }
  return taken;
}

describe('the area indexes', () => {
  it('hold named re-exports only, every one taken by the CLI or the API', async () => {
    const taken = await namesTakenFromIndexes();
    const indexes = areaIndexes();
    expect(indexes.length).toBeGreaterThan(15);
    for (const index of indexes) {
      const names = await exportedNames(join(REPO, index));
      const unused = names.filter((name) => !taken.get(index)?.has(name));
      expect(unused, `${index} exports names nothing imports`).toEqual([]);
    }
  });

  it('are where the API takes its names from, besides the errors and the version', async () => {
    const text = await readFile(join(REPO, 'src/index.ts'), 'utf8');
    const sources = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(sources.filter((s) => !s?.endsWith('/index.js'))).toEqual([
      './foundation/errors.js',
      './foundation/version.js',
    ]);
  });
});

describe('the library API', () => {
  it('exports exactly the curated names', async () => {
    expect(await exportedNames(join(REPO, 'src/index.ts'))).toEqual(API_NAMES);
  });

  it('is what package.json points at', async () => {
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      main: string;
      types: string;
      exports: Record<string, { types: string; import: string }>;
    };
    expect(pkg.main).toBe('./dist/index.js');
    expect(pkg.types).toBe('./dist/index.d.ts');
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
  });

  it('loads the built entry point with no side effects, its values matching the pinned names', async () => {
    const script = [
      "const listeners = () => ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException']",
      '  .map((e) => process.listenerCount(e)).join(",");',
      'const before = [listeners(), process.getActiveResourcesInfo().length];',
      "const api = await import('codex-mmo');",
      'const after = [listeners(), process.getActiveResourcesInfo().length];',
      "process.on('exit', () => process.stderr.write(JSON.stringify({ before, after, names: Object.keys(api) })));",
    ].join('\n');
    const file = join(REPO, 'dist', `.api-check-${String(process.pid)}.mjs`);
    await writeFile(file, script);
    try {
      const { stdout, stderr } = await run(process.execPath, [file], {
        cwd: REPO,
        timeout: 30_000,
      });
      expect(stdout).toBe('');
      const seen = JSON.parse(stderr) as { before: unknown; after: unknown; names: string[] };
      expect(seen.after).toEqual(seen.before);
      const values = [...seen.names].sort();
      expect(values.length).toBeGreaterThan(30);
      for (const name of values) expect(API_NAMES).toContain(name);
    } finally {
      await rm(file, { force: true });
    }
  });

  it('runs the library example of docs/library.md', async () => {
    const section = await readFile(join(REPO, 'docs/library.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toContain("from 'codex-mmo'");
    const dir = await tmpDir();
    const config = join(dir, 'config');
    await cp(join(REPO, 'test/fixtures/compile/team/config'), config, { recursive: true });
    await cp(join(REPO, 'test/fixtures/compile/team/pack'), join(dir, 'research'), {
      recursive: true,
    });
    await mkdir(join(dir, 'data'));
    // inside the package, so that `codex-mmo` resolves through package.json's exports
    const file = join(REPO, 'dist', `.readme-example-${String(process.pid)}.mjs`);
    await writeFile(file, example ?? '');
    try {
      const { stdout } = await run(process.execPath, [file], {
        cwd: dir,
        timeout: 30_000,
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          CODEX_MMO_CONFIG_DIR: config,
          CODEX_MMO_DATA_DIR: join(dir, 'data'),
          CODEX_MMO_STATE_DIR: join(dir, 'state'),
        },
      });
      expect(stdout).toMatch(/^sha256:[0-9a-f]{64} \[.*'config\.toml'/);
    } finally {
      await rm(file, { force: true });
    }
  });
});
