// attention.js: the one JavaScript entry point to the attention-calc C++ core.
//
//   import { loadAttention } from './attention.js';
//   const attn = await loadAttention();          // SIMD build where WebAssembly SIMD validates
//   const r = attn.attention({ q, k, v, mask: 'causal' });
//   r.weights[0][1];                              // a plain number
//
// Every number comes from the C++ core (src/), compiled to WebAssembly; this module only
// converts between JS arrays and the core's row-major float32 matrices, checks that the input
// has the right form, and turns core errors into JS Errors. Types: attention.d.ts.
// Results are fresh JS arrays: nothing returned points into the wasm heap.
//
// This file assembles the Attention object from modules by job (api/): loading the core
// (modules.js), input conversion (convert.js), the calculator's API (calculator.js), the labs'
// (labs.js), the learned heads' with their own module (learned.js), and GPT-2 (gpt2.js,
// loaded on first use). The rule between JS and the core: JS checks the form of an input (a
// number, a matrix, a string), the core every value and limit.

import { argument, describe, fail, optionsOf, toBoolean } from './api/arguments.js';
import { Calculator, reasonNames } from './api/calculator.js';
import { sizeRules, toUrl } from './api/convert.js';
import { Labs } from './api/labs.js';
import { LearnedHeads } from './api/learned.js';
import { bestBuild, instantiate, wasmRelaxedSimdSupported, wasmSimdSupported } from './api/modules.js';

export { wasmRelaxedSimdSupported, wasmSimdSupported };

// One loaded instance per build and location, shared by every caller on the page.
const instances = new Map();

/**
 * Loads the core. Resolves to an Attention object; later calls share the same instance.
 * @param {{ simd?: boolean | 'relaxed', baseUrl?: string | URL, labs?: boolean, nextLabs?: boolean }} [options]
 *   simd: force the relaxed-SIMD ('relaxed'), SIMD (true) or scalar (false) build; default: the
 *     best this engine validates, in that order.
 *   baseUrl: folder holding the modules' {attention,calculator,learned,gpt2}-{relaxed,simd,scalar}.wasm
 *     and their glue, -{simd,scalar}.mjs (the relaxed build runs with the SIMD build's)
 *     (dist/wasm/ of a copy of the package, e.g. on a CDN), relative to this file unless absolute;
 *     default: the files a site's bundler copied (web/assets.js), or ./wasm/ beside this file.
 *   labs: false loads the calculator's module alone (calculator-{simd,scalar}: attention, masks,
 *     checks, convexHull, cost, limits), half the bytes, for a page that shows no lab; the labs'
 *     methods then throw. Where the full core is loaded or loading already, that one is returned.
 *   nextLabs: with labs: false, loads the next labs' module instead (next-labs-{simd,scalar}: the
 *     calculator's functions and the labs past the lesson's in one), for a page whose only labs are
 *     those: loadNextLabs() then resolves at once, with no second module.
 */
export function loadAttention(options) {
  let variant, base, labs, nextLabs;
  try {
    const o = optionsOf(options, 'loadAttention', '{ simd: false }');
    variant = argument('simd', () => toBuild(o.simd));
    base = o.baseUrl === undefined ? null : argument('baseUrl', () => toBaseUrl(o.baseUrl));
    labs = argument('labs', () => toBoolean(o.labs ?? true, 'labs'));
    nextLabs = argument('nextLabs', () => toBoolean(o.nextLabs ?? false, 'nextLabs'));
  } catch (error) {
    return Promise.reject(error);
  }
  if (variant === 'simd' && !wasmSimdSupported()) {
    return Promise.reject(new Error('attention-calc: this browser does not support WebAssembly SIMD'));
  }
  if (variant === 'relaxed' && !wasmRelaxedSimdSupported()) {
    return Promise.reject(new Error('attention-calc: this engine does not support WebAssembly relaxed SIMD'));
  }
  const full = `${variant} ${base?.href ?? 'bundled'}`;
  // The full core serves every page; the next labs' module, which holds the calculator's functions,
  // serves a page that asks for the calculator alone.
  const next = `${full} next`;
  const key = labs || instances.has(full) ? full : nextLabs || instances.has(next) ? next : `${full} calculator`;
  if (!instances.has(key)) {
    const name = key === full ? 'attention' : key === next ? 'next-labs' : 'calculator';
    const loading = instantiate(name, variant, base).then((module) => new Attention(module, variant, base));
    // A failed load is not cached, so a later call can try again.
    loading.catch(() => instances.delete(key));
    instances.set(key, loading);
  }
  return instances.get(key);
}

// The simd option as a build's name: undefined detects the best.
function toBuild(value) {
  if (value === undefined) return bestBuild();
  if (value === 'relaxed') return 'relaxed';
  if (typeof value !== 'boolean') fail(`simd must be true, false or 'relaxed' (got ${describe(value)})`);
  return value ? 'simd' : 'scalar';
}

// This file's URL, as a value: new URL(value, import.meta.url) with a computed value makes a
// site's bundler warn (webpack: "Critical dependency: the request of a dependency is an expression").
const HERE = import.meta.url;

// The folder of the modules, relative to this file unless absolute.
const toBaseUrl = (value) => toUrl(value, 'baseUrl', HERE);

/** The loaded core. Create it with loadAttention(). Each method is its module's (api/). */
class Attention {
  #calculator;
  #labs;
  #learned;
  #nextLabs = null;       // api/next-labs.js's NextLabs, once loadNextLabs() has loaded it and its module
  #nextLabsLoading = null;
  #nextLabsArgs;
  #base;               // the folder of the modules
  #gpt2Loading = null; // Promise of GPT-2's module with its tokenizer, once asked for

  constructor(core, variant, base) {
    this.#calculator = new Calculator(core);
    const limits = this.#calculator.limits();
    this.#labs = new Labs(core, limits);
    this.#learned = new LearnedHeads(variant, base, HERE, sizeRules(core, limits));
    this.#nextLabsArgs = [variant, base, sizeRules(core, limits), reasonNames(core.maskReasonBits())];
    // The next labs' module holds the calculator's functions too: loaded as the core, it is theirs.
    if (typeof core.positionalAttention === 'function') this.#nextLabsArgs.push(core);
    this.#base = base;
    /** The build running: 'relaxed' (SIMD with relaxed SIMD's multiply-add), 'simd' or 'scalar'. */
    this.build = variant;
    /** Whether a SIMD build (relaxed or not) is running. */
    this.simd = variant !== 'scalar';
    /** Instruction set the kernels were compiled for: "wasm-relaxed", "wasm" (SIMD) or "scalar". */
    this.arch = core.arch();
  }

  // The calculator (api/calculator.js)
  limits() { return this.#calculator.limits(); }
  attention(options) { return this.#calculator.attention(options); }
  maskReasons(options) { return this.#calculator.maskReasons(options); }
  cost(options) { return this.#calculator.cost(options); }
  convexHull(points) { return this.#calculator.convexHull(points); }

  // The labs (api/labs.js)
  multiHead(options) { return this.#labs.multiHead(options); }
  attentionOutput(options) { return this.#labs.attentionOutput(options); }
  parameterCount(options) { return this.#labs.parameterCount(options); }
  normalMatrix(options) { return this.#labs.normalMatrix(options); }
  entropy(weights) { return this.#labs.entropy(weights); }
  scalingExperiment(options) { return this.#labs.scalingExperiment(options); }
  scalingRowStudy(options) { return this.#labs.scalingRowStudy(options); }
  constructedHead(options) { return this.#labs.constructedHead(options); }
  timeAttention(options) { return this.#labs.timeAttention(options); }
  fitPowerLaw(options) { return this.#labs.fitPowerLaw(options); }
  peakMulAdd(iterations) { return this.#labs.peakMulAdd(iterations); }

  // The labs past the lesson (api/next-labs.js), once loadNextLabs() has loaded their module
  // (their API code too is a chunk of its own: the lesson's labs' embed transfers none of it).
  loadNextLabs() {
    if (!this.#nextLabsLoading) {
      this.#nextLabsLoading = import('./api/next-labs.js').then(async ({ NextLabs }) => {
        const labs = new NextLabs(...this.#nextLabsArgs);
        await labs.loadNextLabs();
        this.#nextLabs = labs;
      });
      this.#nextLabsLoading.catch(() => (this.#nextLabsLoading = null)); // a failed load can be tried again
    }
    return this.#nextLabsLoading;
  }
  #next(name) {
    return this.#nextLabs ?? fail(`${name} needs the next labs' module, which has not loaded: await loadNextLabs() first`);
  }
  positionalAttention(options) { return this.#next('positionalAttention').positionalAttention(options); }
  tiledAttention(q, k, v, options) { return this.#next('tiledAttention').tiledAttention(q, k, v, options); }
  attentionPeakFloats(options) { return this.#next('attentionPeakFloats').attentionPeakFloats(options); }
  decodeStep(options) { return this.#next('decodeStep').decodeStep(options); }
  groupedAttention(q, k, v, options) { return this.#next('groupedAttention').groupedAttention(q, k, v, options); }
  kvCacheBytes(options) { return this.#next('kvCacheBytes').kvCacheBytes(options); }

  // The learned heads (api/learned.js)
  learnedModel(options) { return this.#learned.learnedModel(options); }
  loadLearned() { return this.#learned.loadLearned(); }
  createTrainer(options) { return this.#learned.createTrainer(options); }
  learnedGoals(model) { return this.#learned.learnedGoals(model); }

  /**
   * Opens a GPT-2 safetensors file: a File or Blob, its bytes, or its URL (read by HTTP Range).
   * GPT-2's module (gpt2-{simd,scalar}.mjs/.wasm) and tokenizer (gpt2-tokenizer.bin) load on first
   * use. See attention.d.ts.
   */
  openGpt2(source, options) {
    return import('./api/gpt2.js').then((gpt2) => gpt2.openGpt2({ core: () => this.#gpt2Core() }, source, options));
  }

  #gpt2Core() {
    if (!this.#gpt2Loading) {
      this.#gpt2Loading = import('./api/gpt2.js').then((gpt2) => gpt2.loadGpt2Core(this.#base, this.build));
      this.#gpt2Loading.catch(() => (this.#gpt2Loading = null)); // a failed load can be tried again
    }
    return this.#gpt2Loading;
  }

  /**
   * Bytes currently allocated in the wasm heaps, the calculator's and (once loaded) the learned
   * heads' (a diagnostic: it stays flat across calls).
   */
  heapBytesInUse() {
    return this.#calculator.heapBytesInUse() + this.#learned.heapBytesInUse();
  }
}
