/**
 * Adds variables to `credentials.env` (mode 0600, replaced atomically, existing lines kept as
 * they are): the values `tool-mcp import --move-secrets` takes out of another client's file. A
 * value is quoted so that the registry's strict dotenv parser reads it back unchanged.
 */
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import { readConfigFile } from '../../config/registry/read-config-file.js';

/** `NAME=value` with the value quoted for `parseDotenv`, or undefined when no quoting fits. */
export function dotenvLine(name: string, value: string): string | undefined {
  if (value.includes('\u0000')) return undefined;
  if (!value.includes("'")) return `${name}='${value}'`;
  if (!value.includes('`')) return `${name}=\`${value}\``;
  if (!value.includes('"') && !value.includes('\\')) return `${name}="${value}"`;
  return undefined;
}

/**
 * Appends `values` (name → value) to `file` after a comment line. Throws IoError when the file
 * cannot be read or written; returns the names that could not be written as dotenv.
 */
export async function appendCredentials(
  file: string,
  values: ReadonlyMap<string, string>,
  comment: string,
): Promise<{ readonly written: string[]; readonly unwritable: string[] }> {
  const existing = await readConfigFile(file);
  let text = '';
  if (existing.kind === 'ok') text = new TextDecoder().decode(existing.bytes);
  else if (existing.kind !== 'missing') {
    throw new Error(`cannot read ${file} to add the moved variables (${existing.kind})`);
  }
  const lines: string[] = [];
  const written: string[] = [];
  const unwritable: string[] = [];
  for (const [name, value] of values) {
    const line = dotenvLine(name, value);
    if (line === undefined) unwritable.push(name);
    else {
      lines.push(line);
      written.push(name);
    }
  }
  if (lines.length === 0) return { written, unwritable };
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  await writeFileAtomic(file, `${text}${separator}# ${comment}\n${lines.join('\n')}\n`, 0o600);
  return { written, unwritable };
}
