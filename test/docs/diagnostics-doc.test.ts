/**
 * docs/diagnostics.md must describe every diagnostic and error code the source can emit. Codes are
 * found by parsing every file under src/ with the TypeScript compiler: string literals given as a
 * `code:` property, as the argument of a function, method or constructor parameter named `code`
 * (including `super(...)` calls), and the keys of the diagnostic-code catalogues.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { PROBE_CODES } from '../../src/runtime/probe/diagnostic-codes.js';
import { PROFILE_DIAGNOSTIC_CODES } from '../../src/config/profile/diagnostic-codes.js';
import { REGISTRY_CODES } from '../../src/config/registry/diagnostic-codes.js';

const SRC = 'src';
const DOC = 'docs/diagnostics.md';
const CODE_SHAPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** Where a code was found, for failure messages. */
type Found = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function visit(node: ts.Node, fn: (node: ts.Node) => void): void {
  fn(node);
  node.forEachChild((child) => {
    visit(child, fn);
  });
}

function nameText(name: ts.Node | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name)) return name.text;
  return undefined;
}

/** The name a function-like declaration is called by, and the class it belongs to. */
function callableName(node: ts.SignatureDeclaration): string | undefined {
  if (ts.isConstructorDeclaration(node)) {
    return ts.isClassLike(node.parent) ? nameText(node.parent.name) : undefined;
  }
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) return nameText(node.name);
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
      return nameText(parent.name);
    }
    if (ts.isPropertyDeclaration(parent)) return nameText(parent.name);
  }
  return undefined;
}

interface Callables {
  /** Callable name → index of its `code` parameter, per file and across all files. */
  readonly perFile: Map<string, Map<string, number>>;
  readonly global: Map<string, number>;
  /** Class name → the class it extends. */
  readonly parents: Map<string, string>;
}

function collectCallables(files: readonly ts.SourceFile[]): Callables {
  const perFile = new Map<string, Map<string, number>>();
  const global = new Map<string, number>();
  const parents = new Map<string, string>();
  for (const file of files) {
    const local = new Map<string, number>();
    perFile.set(file.fileName, local);
    visit(file, (node) => {
      if (ts.isClassLike(node) && node.name !== undefined) {
        const extended = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)
          ?.types[0]?.expression;
        if (extended !== undefined && ts.isIdentifier(extended)) {
          parents.set(node.name.text, extended.text);
        }
      }
      if (!ts.isFunctionLike(node)) return;
      const index = node.parameters.findIndex((p) => nameText(p.name) === 'code');
      const name = callableName(node);
      if (index < 0 || name === undefined) return;
      local.set(name, index);
      global.set(name, index);
    });
  }
  return { perFile, global, parents };
}

/** String literals an expression can evaluate to (through `?:`, `??`, `||`, parentheses, `as`). */
function literalsOf(node: ts.Expression, file: ts.SourceFile): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) {
    return literalsOf(node.expression, file);
  }
  if (ts.isSatisfiesExpression(node) || ts.isNonNullExpression(node)) {
    return literalsOf(node.expression, file);
  }
  if (ts.isConditionalExpression(node)) {
    return [...literalsOf(node.whenTrue, file), ...literalsOf(node.whenFalse, file)];
  }
  if (
    ts.isBinaryExpression(node) &&
    (node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
      node.operatorToken.kind === ts.SyntaxKind.BarBarToken)
  ) {
    return [...literalsOf(node.left, file), ...literalsOf(node.right, file)];
  }
  // `TABLE[key]` where TABLE is an object literal of this file: every string value it holds
  if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression)) {
    return objectValues(file, node.expression.text);
  }
  return [];
}

function objectValues(file: ts.SourceFile, name: string): string[] {
  const out: string[] = [];
  visit(file, (node) => {
    if (!ts.isVariableDeclaration(node) || nameText(node.name) !== name) return;
    let init = node.initializer;
    while (init !== undefined && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) {
      init = init.expression;
    }
    if (init === undefined || !ts.isObjectLiteralExpression(init)) return;
    for (const property of init.properties) {
      if (ts.isPropertyAssignment(property)) out.push(...literalsOf(property.initializer, file));
    }
  });
  return out;
}

/** The name a call resolves to; `super(…)` resolves to the class the enclosing class extends. */
function calleeName(
  node: ts.CallExpression | ts.NewExpression,
  parents: ReadonlyMap<string, string>,
): string | undefined {
  const callee = node.expression;
  if (callee.kind === ts.SyntaxKind.SuperKeyword) {
    const own = nameText(ts.findAncestor(node, ts.isClassLike)?.name);
    return own !== undefined ? parents.get(own) : undefined;
  }
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return nameText(callee.name);
  return undefined;
}

/** Every code the source can emit, with the files it appears in. */
function emittedCodes(): Found {
  const files = sourceFiles(SRC).map(parse);
  const callables = collectCallables(files);
  const found: Found = new Map();
  const add = (code: string, where: string): void => {
    if (!CODE_SHAPE.test(code)) return;
    const set = found.get(code) ?? new Set<string>();
    set.add(where);
    found.set(code, set);
  };
  for (const file of files) {
    const where = relative('.', file.fileName);
    const local = callables.perFile.get(file.fileName) ?? new Map<string, number>();
    visit(file, (node) => {
      if (ts.isPropertyAssignment(node) && nameText(node.name) === 'code') {
        for (const code of literalsOf(node.initializer, file)) add(code, where);
      }
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const name = calleeName(node, callables.parents);
        if (name === undefined) return;
        const index = local.get(name) ?? callables.global.get(name);
        const argument = index === undefined ? undefined : node.arguments?.[index];
        if (argument === undefined) return;
        for (const code of literalsOf(argument, file)) add(code, where);
      }
    });
  }
  const catalogues: [string, Record<string, unknown>][] = [
    ['src/config/registry/diagnostic-codes.ts', REGISTRY_CODES],
    ['src/config/profile/diagnostic-codes.ts', PROFILE_DIAGNOSTIC_CODES],
    ['src/runtime/probe/diagnostic-codes.ts', PROBE_CODES],
  ];
  for (const [where, catalogue] of catalogues) {
    for (const code of Object.keys(catalogue)) add(code, where);
  }
  return found;
}

/** Codes the reference documents: backticked first cells of its table rows. */
function documentedCodes(text: string): Set<string> {
  const codes = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^\|\s*`([^`]+)`\s*\|/.exec(line);
    if (match?.[1] !== undefined) codes.add(match[1]);
  }
  return codes;
}

describe('docs/diagnostics.md', () => {
  const found = emittedCodes();
  const doc = readFileSync(DOC, 'utf8');
  const documented = documentedCodes(doc);

  it('finds the codes of every kind of emitter', () => {
    // a sample from each way a code reaches a diagnostic: if one is lost, the extraction broke
    for (const code of [
      'missing-env-var', // `code:` property
      'codex-base-owned-key', // local report(code, …)
      'lock-file-unknown-key', // at(path, code, …): code is not the first parameter
      'unknown-role', // report( on its own line, code on the next
      'probe-start-failed', // code: TABLE[kind]
      'io-error', // super('io-error', …)
      'refused', // new MeshError('refused', …)
      'oauth-field', // registry catalogue
      'smoke-tool-missing',
    ]) {
      expect(found.has(code), `extraction no longer finds ${code}`).toBe(true);
    }
    expect(found.size).toBeGreaterThan(100);
  });

  it('documents every code the source emits', () => {
    const missing = [...found.keys()]
      .filter((code) => !documented.has(code))
      .sort()
      .map((code) => `${code} (${[...(found.get(code) ?? [])].join(', ')})`);
    expect(missing, `add these codes to ${DOC}`).toEqual([]);
  });

  it('documents no code the source no longer emits', () => {
    const stale = [...documented].filter((code) => !found.has(code)).sort();
    expect(stale, `remove these codes from ${DOC} or restore them`).toEqual([]);
  });

  it('gives every documented code a severity', () => {
    const rows = doc.split('\n').filter((line) => /^\|\s*`[^`]+`\s*\|/.test(line));
    const without = rows.filter((row) => !/\|\s*(error|warning|info|—)[^|]*\|/.test(row));
    expect(without).toEqual([]);
  });
});
