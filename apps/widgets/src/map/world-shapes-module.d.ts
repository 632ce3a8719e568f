// The build-time module of country outlines (libs/world-shapes, served by build.ts): [alpha-2 or '', SVG path data].
declare module 'sightline:world-shapes' {
  const shapes: Array<[string, string]>;
  export default shapes;
}
