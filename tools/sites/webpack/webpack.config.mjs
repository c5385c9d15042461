// A webpack 5 site as its author configures it: one entry that imports the package, nothing
// about the package's files (webpack copies the wasm, stylesheets and worker it finds).
//   node build.mjs <output folder>   (tools/sites/build.mjs runs it)
export default (outputPath) => ({
  mode: 'production',
  context: new URL('.', import.meta.url).pathname,
  entry: './main.js',
  output: { path: outputPath, clean: true },
});
