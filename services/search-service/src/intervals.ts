/** The interval algebra lives in @vus/core (classify-service measures matched time with it too). */
export {
  MIN_MOMENT_SECONDS,
  closeGaps,
  coalesce,
  followedBy,
  intersect,
  normalise,
  sequence,
  subtract,
  union,
  unionAll,
  widen,
  type Moment,
} from '@vus/core';
