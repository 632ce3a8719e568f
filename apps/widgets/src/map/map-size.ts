/** The map widget's drawing size (SVG viewBox), shared by the build-time projection and the script. */
export const MAP_SIZE = { width: 960, height: 480 } as const;
