/**
 * The fixture files of `tool-mcp import` (test/fixtures/import/…) and their parse, for the
 * import tests: `importFixture('codex/config.toml')`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import type { KnownCredential } from '../../src/config/registry/credential-literals.js';
import { parseImportFile } from '../../src/features/onboard/import-plan.js';
import type {
  ImportCandidate,
  ImportFormat,
  ParsedImportFile,
} from '../../src/features/onboard/import-types.js';

export const IMPORT_FIXTURES = resolve('test/fixtures/import');

/** Literal secrets planted in the fixtures: no output may contain one. */
export const FIXTURE_SECRETS = [
  'ghp_importCanary0123456789abcdefABCDEF01',
  'docs-bearer-canary-value-5521',
  'xkey-canary-value-8812',
  'plain-canary-secret-3310',
  'svc-default-canary-7781',
  'xoxb-1234567890-canaryclaude',
];

export function importFixture(
  format: ImportFormat,
  name: string,
  known: readonly KnownCredential[] = [],
): ParsedImportFile {
  const file = resolve(IMPORT_FIXTURES, name);
  return parseImportFile(format, readFileSync(file, 'utf8'), file, known);
}

/** The candidate named `name` (throws when absent). */
export function candidateNamed(parsed: ParsedImportFile, id: string): ImportCandidate {
  const found = parsed.candidates.find((c) => c.id === id);
  if (found === undefined) throw new Error(`no candidate ${id} in ${parsed.file}`);
  return found;
}

export const codesOf = (c: { diagnostics: readonly { code: string }[] }): string[] =>
  c.diagnostics.map((d) => d.code);
