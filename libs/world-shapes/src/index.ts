export { worldShapes, relativePath, type CountryShape, type MapSize } from './world-shapes.js';
export { readWorldAtlas } from './world-atlas.js';
export { ALPHA2_OF_NUMERIC } from './iso-numeric.js';
