/** The map's shading: five classes by share of the busiest country. */
export const LEVELS = 5;

/** 1 for the fewest visitors up to 5 for the busiest country (0 visitors: no class). */
export function level(visitors: number, max: number): number {
  return Math.min(LEVELS, 1 + Math.floor((visitors / max) * (LEVELS - 0.001)));
}
