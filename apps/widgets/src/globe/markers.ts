/** The globe's marker geometry, kept apart from the WebGL drawing so it can be tested. */

/** Marker radius in cobe's units: a floor so one visitor shows, growing with the square root (area ∝ visitors). */
export function markerSize(visitors: number, max: number): number {
  return 0.03 + 0.07 * Math.sqrt(Math.max(0, visitors) / Math.max(1, max));
}

/** A pulse: the marker swells to 2.2× and settles back over `duration` ms (1 before and after). */
export function pulseScale(elapsed: number, duration: number): number {
  if (elapsed < 0 || elapsed >= duration) return 1;
  return 1 + 1.2 * Math.sin((elapsed / duration) * Math.PI);
}

/** cobe's [phi, theta] that put (lat, lon) in the middle of the globe's face. */
export function rotationToward(lat: number, lon: number): [number, number] {
  return [Math.PI - ((lon * Math.PI) / 180 - Math.PI / 2), (lat * Math.PI) / 180];
}
