/**
 * Rules for a Streamable HTTP server's `url`: an absolute http(s) URL without user info or
 * credential-looking query parameters, and plain http only to a loopback host. Findings name the
 * offending part (a query parameter's name at most), never the URL or any value in it.
 */
import { isCredentialQueryName, isCredentialValue } from './credential-patterns.js';
import type { RegistryCode } from './diagnostic-codes.js';

export interface UrlFinding {
  readonly code: RegistryCode;
  readonly message: string;
}

/** Whether `text` has a space or a C0/C1 control character (which the URL parser would strip). */
function hasSpaceOrControl(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c <= 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Whether a WHATWG-normalised hostname is loopback: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  if (host === '[::1]') return true;
  // IPv4-mapped IPv6 loopback, as the URL parser writes it: [::ffff:7f00:1]
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Checks a URL string; returns every problem found (empty when the URL is acceptable). */
export function checkUrl(url: string): UrlFinding[] {
  if (url.length === 0) {
    return [{ code: 'invalid-url', message: 'url is empty; write the https:// URL of the server' }];
  }
  if (hasSpaceOrControl(url)) {
    return [
      {
        code: 'invalid-url',
        message:
          'url contains whitespace or control characters; write the URL without spaces (percent-encode them as %20)',
      },
    ];
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [
      {
        code: 'invalid-url',
        message: 'url is not a valid absolute URL; write it as https://host[:port]/path',
      },
    ];
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return [
      {
        code: 'invalid-url',
        message:
          'url must use https:// (or http:// to a loopback host); other schemes are not supported by streamable_http',
      },
    ];
  }
  const findings: UrlFinding[] = [];
  if (parsed.username !== '' || parsed.password !== '') {
    findings.push({
      code: 'url-userinfo',
      message:
        'url contains a user name or password; remove it from the URL and authenticate with bearer_token_env_var or env_http_headers, with the value in credentials.env',
    });
  }
  const credentialParams: string[] = [];
  let shapedValue = false;
  const query = parsed.search.startsWith('?') ? parsed.search.slice(1) : parsed.search;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : safeDecode(pair.slice(eq + 1));
    if (isCredentialQueryName(name)) {
      if (!credentialParams.includes(name)) credentialParams.push(name);
    } else if (isCredentialValue(value)) {
      shapedValue = true;
    }
  }
  for (const name of credentialParams) {
    // a parameter name is shown only when it is short and plainly a name, never token-shaped
    const shown =
      name.length <= 40 && /^[A-Za-z0-9_.-]+$/.test(name) && !isCredentialValue(name)
        ? `the credential-looking query parameter "${name}"`
        : 'a credential-looking query parameter';
    findings.push({
      code: 'url-credential',
      message: `url has ${shown}; remove it from the URL and send the secret with env_http_headers or bearer_token_env_var, with the value in credentials.env`,
    });
  }
  const shapedElsewhere =
    isCredentialValue(safeDecode(parsed.host + parsed.pathname)) ||
    isCredentialValue(safeDecode(parsed.hash));
  if (shapedValue || shapedElsewhere) {
    findings.push({
      code: 'url-credential',
      message:
        'url contains a value shaped like a credential (an API key or token); remove it from the URL and send it with env_http_headers or bearer_token_env_var, with the value in credentials.env',
    });
  }
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
    findings.push({
      code: 'insecure-http',
      message:
        'plain http is only allowed to loopback hosts (127.0.0.0/8, ::1, localhost); use https:// for this host',
    });
  }
  return findings;
}
