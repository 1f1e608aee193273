import { rateLimitHeaders, tooManyRequests, type Admission, type Category, type LimitsSource, type UsageCounters } from '@vus/limits';
import { countRateLimitRejection } from '@vus/telemetry';
import type { RequestHandler } from 'express';
import { locals } from '../http/context';
import { categoriesOf } from './categories';

/**
 * SPEC §8 at the edge: after auth, routing and body parsing (an /embed request's category depends
 * on its input), every applicable dimension of every category the request counts in is checked.
 * The category follows the route that will serve the request (`res.locals.route`, its path
 * pattern), never the path as spelt: a request no built endpoint serves counts in none. Headers
 * for those dimensions go on the response whatever its outcome; an exceeded limit answers 429.
 */
export function rateLimits(counters: UsageCounters, limits: LimitsSource): RequestHandler {
  return (req, res, next) => {
    const route = locals(res).route;
    const categories = route ? categoriesOf(req.method, route.path, req.body) : [];
    if (categories.length === 0) return next();
    const orgId = locals(res).orgId!;
    admit(counters, limits, orgId, categories).then((admission) => {
      res.set(rateLimitHeaders(admission.states));
      if (admission.admitted) return next();
      res.set('Retry-After', String(Math.max(1, Math.ceil((admission.exceeded.resetAt.getTime() - Date.now()) / 1000))));
      next(tooManyRequests(admission.exceeded));
    }, next);
  };
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
