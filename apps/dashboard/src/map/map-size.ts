/** The map's drawing size (SVG viewBox), shared by the build-time projection and the component. */
export const MAP_WIDTH = 960;
export const MAP_HEIGHT = 480;
