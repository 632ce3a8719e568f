// The build-time module of country outlines (see world-shapes.ts and build.ts).
declare module 'sightline:world-shapes' {
  const shapes: import('./world-shapes.js').CountryShape[];
  export default shapes;
}
