/**
 * Records keyed by operator-chosen names (server IDs, tool names, roles): created without a
 * prototype and read by own property only, so an ID such as `constructor`, `toString` or
 * `__proto__` is an ordinary key and never finds a member of `Object.prototype`.
 */

/** An empty record with no prototype. */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `record[key]` when `key` is the record's own property, otherwise undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
