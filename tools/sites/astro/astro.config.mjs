// An Astro site, static output under the base path /course: Calc.astro imports the package in
// its frontmatter (run in Node while the page is built) and in a <script> (in the browser).
export default { base: '/course' };
