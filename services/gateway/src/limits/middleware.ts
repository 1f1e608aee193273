import {
  DIMENSION_RULES,
  rateLimitHeaders,
  tooManyRequests,
  type Admission,
  type Category,
  type LimitsSource,
  type UsageCounters,
} from '@vus/limits';
import { countRateLimitRejection } from '@vus/telemetry';
import type { RequestHandler, Response } from 'express';
import { locals } from '../http/context';
import { endpointOf } from '../endpoints/router';
import { categoriesOf } from './categories';

/**
 * SPEC §8 at the edge: after auth and routing, and before the body is read where the route tells
 * the category (an /embed-v2 request's depends on its input: see before-body.ts), every applicable dimension of every category the request counts in is checked.
 * The category is the one the descriptor of the endpoint that will serve the request declares
 * (endpoints/endpoint.ts `rate`), never read from the path as spelt: a request no built endpoint serves counts in none. Headers
 * for those dimensions go on the response whatever its outcome; an exceeded limit answers 429.
 * A request that does the work of several (a classification runs a search per prompt) counts as
 * those once its route has read it, through `res.locals.countRequestAs`.
 */
export function rateLimits(counters: UsageCounters, limits: LimitsSource): RequestHandler {
  return (req, res, next) => {
    const categories = categoriesOf(endpointOf(res), req.body);
    if (categories.length === 0) return next();
    const orgId = locals(res).orgId!;
    admit(counters, limits, orgId, categories).then((admission) => {
      if (!answer(res, admission)) return next(tooManyRequests(admission.exceeded));
      locals(res).countRequestAs = (category, units) => countAs(counters, limits, res, orgId, categories, category, units);
      next();
    }, next);
  };
}

/** The limit headers of an admission (and Retry-After of a refusal); true when it was admitted. */
function answer(res: Response, admission: Admission): admission is Admission & { admitted: true } {
  res.set(rateLimitHeaders(admission.states));
  if (admission.admitted) return true;
  res.set('Retry-After', String(Math.max(1, Math.ceil((admission.exceeded.resetAt.getTime() - Date.now()) / 1000))));
  return false;
}

/** Admits a request in all its categories, or in none: a refusal in one gives back the others. */
async function admit(counters: UsageCounters, limits: LimitsSource, orgId: string, categories: readonly Category[]): Promise<Admission> {
  const table = await limits.limitsFor(orgId);
  const admitted: Category[] = [];
  const states: Admission['states'] = [];
  for (const category of categories) {
    const admission = await counters.admitRequest(orgId, category, table);
    states.push(...admission.states);
    if (!admission.admitted) {
      countRateLimitRejection(category, admission.exceeded.dimension);
      await Promise.all(admitted.map((c) => counters.refundRequest(orgId, c, table)));
      return { admitted: false, states, exceeded: admission.exceeded };
    }
    admitted.push(category);
  }
  return { admitted: true, states };
}

/**
 * Makes an admitted request count as `units` requests of `category`: takes the ones beyond the one
 * it took on arrival (its headers then show what is left). A refusal takes nothing, gives back
 * what the request took on arrival, and throws the 429.
 */
async function countAs(
  counters: UsageCounters,
  limits: LimitsSource,
  res: Response,
  orgId: string,
  admittedIn: readonly Category[],
  category: Category,
  units: number,
): Promise<void> {
  if (!admittedIn.includes(category)) throw new Error(`the request was not admitted in ${category}`);
  const more = Math.ceil(units) - 1;
  if (more <= 0) return;
  const table = await limits.limitsFor(orgId);
  const admission = await counters.admitRequest(orgId, category, table, more);
  if (admission.admitted) {
    answer(res, admission);
    return;
  }
  countRateLimitRejection(category, admission.exceeded.dimension);
  await Promise.all(admittedIn.map((c) => counters.refundRequest(orgId, c, table)));
  // What is left once the arrival's request is given back too.
  const states = admission.states.map((s) =>
    DIMENSION_RULES[s.dimension].kind === 'request' ? { ...s, remainingUnits: s.remainingUnits + 1 } : s,
  );
  answer(res, { ...admission, states });
  throw tooManyRequests(admission.exceeded);
}
