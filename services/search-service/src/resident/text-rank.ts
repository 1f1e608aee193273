/**
 * PostgreSQL's ts_rank with its default weights and no normalisation, for the resident index's
 * first tier (store.ts lexical ranks its pool by it): the same formulas (tsrank.c), rounded to single
 * precision where C computes in float, so that ranks are equal, not only close, and ties fall alike. Pure.
 */
import { positionOf, weightOf } from './tsvector';

/** ts_rank's default weights by weight code: D 0.1, C 0.2, B 0.4, A 1. */
const WEIGHTS = [0.1, 0.2, 0.4, 1.0].map(Math.fround);
const f = Math.fround;

/** One query lexeme's packed positions in the document (tsvector.ts), in position order; undefined: absent. */
export type LexemePositions = ArrayLike<number> | undefined;

/**
 * calc_rank_or: per query lexeme found, its positions' weights damped by the square of their order,
 * the heaviest counted whole; the sum over the query's distinct lexemes, divided by their count.
 */
export function rankOr(lexemes: readonly LexemePositions[]): number {
  let rank = 0;
  for (const positions of lexemes) {
    if (!positions) continue;
    let sum = 0;
    let heaviest = -1;
    let heaviestAt = 0;
    for (let j = 0; j < positions.length; j++) {
      const weight = WEIGHTS[weightOf(positions[j]!)]!;
      sum = f(sum + f(weight / ((j + 1) * (j + 1))));
      if (weight > heaviest) {
        heaviest = weight;
        heaviestAt = j;
      }
    }
    if (positions.length === 0) continue;
    const damped = f(f(heaviest + sum) - f(heaviest / ((heaviestAt + 1) * (heaviestAt + 1))));
    rank = f(rank + damped / 1.64493406685);
  }
  return atLeastTiny(lexemes.length > 0 ? f(rank / lexemes.length) : rank);
}

/** word_distance: how much two lexemes `distance` apart count together. */
function wordDistance(distance: number): number {
  if (distance > 100) return f(1e-30);
  return f(1.0 / (1.005 + 0.05 * Math.exp(f(distance) / 1.5 - 2)));
}

/**
 * calc_rank_and (a phrase or AND query of two or more distinct lexemes): every pair of positions of
 * two different lexemes, weighted by their weights and closeness, combined as independent chances.
 */
export function rankAnd(lexemes: readonly LexemePositions[]): number {
  if (lexemes.length < 2) return rankOr(lexemes);
  let rank = -1;
  for (let i = 0; i < lexemes.length; i++) {
    const here = lexemes[i];
    if (!here) continue;
    for (let k = 0; k < i; k++) {
      const there = lexemes[k];
      if (!there) continue;
      for (let l = 0; l < here.length; l++) {
        for (let p = 0; p < there.length; p++) {
          // Two lexemes at one position count only where one has no positions (never here: every
          // stored lexeme has them), as MAX_POSITION apart.
          const distance = Math.abs(positionOf(here[l]!) - positionOf(there[p]!));
          if (distance === 0) continue;
          const weight = f(Math.sqrt(f(f(WEIGHTS[weightOf(here[l]!)]! * WEIGHTS[weightOf(there[p]!)]!) * wordDistance(distance))));
          rank = rank < 0 ? weight : f(1.0 - (1.0 - rank) * (1.0 - weight));
        }
      }
    }
  }
  return atLeastTiny(rank);
}

/** calc_rank's floor: a document that matched ranks above zero. */
const atLeastTiny = (rank: number): number => (rank < 0 ? f(1e-20) : rank);
