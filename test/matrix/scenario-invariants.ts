/**
 * The invariants every scenario must keep, checked against its evidence; each broken one is a
 * line saying which invariant and what was seen. Each role is offered exactly its grant; no call
 * outside a grant reaches a server; every call, approval and event is attributed to the right
 * role and process; the status and exit code are the documented ones; nothing survives the
 * session (no process, socket or key file) and nothing prints a stack trace; the canary appears
 * in no output, file, model request or process but the canary server's own.
 */
import type { ScenarioEvidence } from './scenario-evidence.js';
import {
  expectedAnswer,
  expectedCalls,
  expectedEnd,
  expectedOffer,
  sortedKeys,
} from './scenario-expected.js';
import { parseMarker, teamRoles } from './scenario-team.js';

type Json = Record<string, unknown>;
const s = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const TOOL_SERVERS = new Set(['notes', 'vault', 'ghost']);
const STACK_TRACE = /^\s+at .+:\d+(:\d+)?\)?$|Unhandled|ProcessError/m;

function same(what: string, seen: readonly string[], wanted: readonly string[]): string[] {
  const a = [...seen].sort();
  const b = [...wanted].sort();
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const extra = a.filter((x) => !b.includes(x));
  const missing = b.filter((x) => !a.includes(x));
  return [`${what}: extra ${JSON.stringify(extra)}, missing ${JSON.stringify(missing)}`];
}

function offers(e: ScenarioEvidence): string[] {
  const out: string[] = [];
  const roles = teamRoles(e.scenario);
  for (const role of Object.values(roles)) {
    const requests = e.requests.filter((r) => r.role === role.name);
    if (requests.length === 0) out.push(`offer: role ${role.name} made no model request`);
    const wanted = JSON.stringify(expectedOffer(role));
    for (const seen of new Set(requests.map((r) => JSON.stringify(sortedKeys(r.mcp))))) {
      if (seen !== wanted) out.push(`offer: ${role.name} was offered ${seen}, granted ${wanted}`);
    }
  }
  if (e.requests.some((r) => r.role === undefined)) out.push('offer: a model request of no role');
  return out;
}

function reachedServers(e: ScenarioEvidence): string[] {
  const out: string[] = [];
  const seen: string[] = [];
  for (const { server, text } of e.reached) {
    const marker = parseMarker(text);
    if (marker?.server !== server) out.push(`server ${server} received a foreign call ${text}`);
    else seen.push(`${marker.role} ${marker.server}.${marker.tool}`);
  }
  return [...out, ...same('calls that reached a server', seen, expectedCalls(e.scenario).ok)];
}

/**
 * A refused request that names no tool (Codex 0.171 opens a new MCP session as it shuts down) is
 * not one of the scenario's calls; the only reason it may have is the session's end.
 */
function requestRefusals(what: string, records: readonly Json[], reason: (r: Json) => unknown) {
  return records
    .filter((r) => s(r.tool) === '' && reason(r) !== 'session-ended')
    .map(
      (r) =>
        `${what}: request ${s(r.method)} of ${s(r.role)} to ${s(r.server)} refused ${s(reason(r))}`,
    );
}

function callRecords(e: ScenarioEvidence): string[] {
  const onServers = e.calls.filter((c) => TOOL_SERVERS.has(s(c.server)));
  const out = requestRefusals('calls.jsonl', onServers, (c) => c.reason);
  const mine = onServers.filter((c) => s(c.tool) !== '');
  const line = (c: Json): string => `${s(c.role)} ${s(c.server)}.${s(c.tool)}`;
  for (const c of mine) {
    const marker = parseMarker(s((c.arguments as Json | undefined)?.preview ?? ''));
    if (marker !== undefined && marker.role !== c.role) {
      out.push(`calls.jsonl: ${marker.role}'s call ${line(c)} is attributed to ${s(c.role)}`);
    }
  }
  const wanted = expectedCalls(e.scenario);
  const ok = mine.filter((c) => c.outcome === 'ok').map(line);
  const refused = mine.filter((c) => c.outcome !== 'ok').map((c) => `${line(c)} ${s(c.reason)}`);
  return [
    ...out,
    ...same('session calls (ok)', ok, wanted.ok),
    ...same('session calls (refused)', refused, wanted.refused),
  ];
}

function approvalRecords(e: ScenarioEvidence): string[] {
  const out: string[] = [];
  const roles = teamRoles(e.scenario);
  const requested = e.approvals.filter((a) => a.type === 'requested');
  const asked: string[] = [];
  for (const a of requested) {
    const marker = parseMarker(s(a.arguments));
    asked.push(`${s(a.role)} ${s(a.server)}.${s(a.tool)}`);
    if (marker?.role !== a.role || roles[s(a.role)]?.process !== a.process) {
      out.push(`approvals.jsonl: ${s(a.arguments)} asked as ${s(a.role)} of ${s(a.process)}`);
    }
    const answer = e.approvals.find((b) => b.type === 'answered' && b.id === a.id);
    const got = answer === undefined ? undefined : `${s(answer.decision)}/${s(answer.how)}`;
    const want = expectedAnswer(e.scenario, marker?.final === true);
    if (got !== want)
      out.push(`approval ${s(a.id)} (${s(a.arguments)}) answered ${s(got)}, expected ${s(want)}`);
  }
  return [...out, ...same('approvals asked', asked, expectedCalls(e.scenario).asked)];
}

function eventRecords(e: ScenarioEvidence): string[] {
  const out: string[] = [];
  const roles = teamRoles(e.scenario);
  for (const ev of e.events) {
    const role = roles[s(ev.role)];
    if (role === undefined) out.push(`event of unknown role: ${JSON.stringify(ev)}`);
    else if (role.process !== ev.process)
      out.push(`event of ${role.name} in ${s(ev.process)}: ${s(ev.type)}`);
  }
  const refusals = e.events.filter(
    (ev) => ev.type === 'tool_call.refused' && TOOL_SERVERS.has(s(ev.server)),
  );
  out.push(...requestRefusals('session logs', refusals, (ev) => ev.text));
  const refused = refusals
    .filter((ev) => s(ev.tool) !== '')
    .map((ev) => `${s(ev.role)} ${s(ev.server)}.${s(ev.tool)} ${s(ev.text)}`);
  const asked = e.events
    .filter((ev) => ev.type === 'approval.requested')
    .map((ev) => `${s(ev.role)} ${s(ev.server)}.${s(ev.tool)}`);
  return [
    ...out,
    ...same('session logs: refused calls', refused, expectedCalls(e.scenario).refused),
    ...same('session logs: approvals asked', asked, expectedCalls(e.scenario).asked),
  ];
}

function ending(e: ScenarioEvidence): string[] {
  const want = expectedEnd(e.scenario);
  const out: string[] = [];
  if (e.exec.code !== want.code || e.exec.signal !== want.signal) {
    out.push(
      `exit: ${s(e.exec.code)}/${s(e.exec.signal)}, expected ${s(want.code)}/${s(want.signal)}`,
    );
  }
  if (e.show.status !== want.status)
    out.push(`status: ${s(e.show.status)}, expected ${want.status}`);
  if (
    want.status === 'failed' &&
    !s(e.show.error).includes("none of the session's processes is running")
  ) {
    out.push(`status error: ${s(e.show.error)}`);
  }
  if (e.scenario.end === 'natural' && !e.exec.stdout.includes('LEAD-DONE')) {
    out.push('the final message LEAD-DONE is not on stdout');
  }
  return out;
}

function leftBehind(e: ScenarioEvidence): string[] {
  const out = e.survivors.map((p) => `survivor: ${p}`);
  out.push(...e.leftovers.map((f) => `left in the session: ${f}`));
  const texts = [e.exec.stdout, e.exec.stderr, ...e.outputs];
  if (texts.some((t) => STACK_TRACE.test(t))) out.push('a stack trace in an output');
  out.push(...e.modelErrors.map((m) => `scripted model: ${m}`));
  return out;
}

function canary(e: ScenarioEvidence): string[] {
  const out: string[] = [];
  const c = e.canary;
  if ([e.exec.stdout, e.exec.stderr, ...e.outputs].some((t) => t.includes(c)))
    out.push('canary in an output');
  if (e.files.includes(c))
    out.push('canary in a file under the data, state, work or home directory');
  if (e.requestText.includes(c)) out.push('canary in a model request');
  for (const p of e.canaryHolders) {
    if (!p.includes('vault-calls.jsonl')) out.push(`canary held by a process: ${p}`);
  }
  return out;
}

export function checkScenario(e: ScenarioEvidence): string[] {
  return [
    ...offers(e),
    ...reachedServers(e),
    ...callRecords(e),
    ...approvalRecords(e),
    ...eventRecords(e),
    ...ending(e),
    ...leftBehind(e),
    ...canary(e),
  ];
}
