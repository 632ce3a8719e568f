// The build-time module of country outlines (libs/world-shapes, served by build.ts).
declare module 'sightline:world-shapes' {
  const shapes: Array<{ code: string; name: string; d: string }>;
  export default shapes;
}
