/**
 * Re-derives the resolved plan of a stored snapshot from the snapshot alone (its profile and its
 * server definitions), so rendering and launching never read an operator file again.
 */
import { formatDiagnostic, hasErrors } from '../../foundation/diagnostics/diagnostic.js';
import { IntegrityError } from '../../foundation/errors.js';
import { resolvePlan } from '../profile/resolve-plan.js';
import type { ResolvedPlan } from '../profile/types.js';
import type { Snapshot } from './types.js';

/** The plan of a snapshot. Throws IntegrityError if the snapshot no longer resolves. */
export function planOfSnapshot(snapshot: Snapshot): ResolvedPlan {
  const { plan, diagnostics } = resolvePlan(
    snapshot.profile,
    new Map(Object.entries(snapshot.servers)),
  );
  if (plan === undefined || hasErrors(diagnostics)) {
    const first = diagnostics.find((d) => d.severity === 'error');
    throw new IntegrityError(
      `snapshot of profile '${snapshot.profile.name}' does not resolve: ${
        first !== undefined ? formatDiagnostic(first) : 'no plan'
      }; compile the profile again`,
    );
  }
  return plan;
}
