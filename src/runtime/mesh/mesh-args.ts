/**
 * Reading the arguments of a mesh call: a string argument is non-empty or the call is invalid.
 */
import { MeshError } from '../protocol/mesh-protocol.js';

/** The string argument `key` of a call; absent is allowed only when it is not `required`. */
export function stringArg(
  params: Record<string, unknown>,
  key: string,
  required = true,
): string | undefined {
  const value = params[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new MeshError('invalid', `argument '${key}' must be a non-empty string`);
  }
  return value;
}
