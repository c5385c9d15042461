// Loaded first by every HTML page the engine suites serve (tests/engines/server.mjs adds the
// <script> tag), as a same-origin classic script, so the strict CSP allows it. It records what
// WebKit's WebDriver cannot report (no console endpoint, no BiDi): uncaught errors, unhandled
// rejections and CSP violations, from before the page's own modules run. It also finds elements
// through shadow roots by accessible name, the same way in every engine.
'use strict';
(() => {
  const problems = [];
  // Capturing: a script or stylesheet that fails to load fires a non-bubbling error too.
  addEventListener('error', (e) => problems.push(e instanceof ErrorEvent ? `error: ${e.message}`
    : `failed to load ${e.target?.src ?? e.target?.href ?? e.target?.tagName}`), true);
  addEventListener('unhandledrejection', (e) => problems.push(`unhandledrejection: ${e.reason?.message ?? e.reason}`));
  document.addEventListener('securitypolicyviolation', (e) => problems.push(`CSP: ${e.violatedDirective} blocked ${e.blockedURI}`));

  // Arrow keys that no handler takes (preventDefault) would scroll the page. Kept from the
  // capture phase, which every key event passes, and read after dispatch.
  const arrowEvents = [];
  addEventListener('keydown', (e) => {
    if (e.key.startsWith('Arrow')) arrowEvents.push(e);
  }, true);

  // ?engine-no-simd: this engine pretends not to know WebAssembly SIMD (0xfd prefixes every
  // SIMD opcode), to check that the page falls back to the scalar build.
  if (new URLSearchParams(location.search).has('engine-no-simd')) {
    const validate = WebAssembly.validate.bind(WebAssembly);
    WebAssembly.validate = (bytes) => (new Uint8Array(bytes.buffer ?? bytes).includes(0xfd) ? false : validate(bytes));
  }
  // The suite's own SIMD module (a v128.const), independent of the page's probe.
  const SIMD_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
    10, 22, 1, 20, 0, 253, 12, ...new Array(16).fill(0), 11]);
  // And its relaxed-SIMD module: f32x4.relaxed_madd of three v128.const.
  const zeros = [253, 12, ...new Array(16).fill(0)];
  const RELAXED_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
    10, 61, 1, 59, 0, ...zeros, ...zeros, ...zeros, 253, 133, 2, 11]);

  function* everyElement(root) {
    for (const el of root.querySelectorAll('*')) {
      yield el;
      if (el.shadowRoot) yield* everyElement(el.shadowRoot);
    }
  }
  const nameOf = (el) => el.getAttribute('aria-label') ?? (el.labels?.[0]?.textContent.trim() || null);

  /** The first element, in any shadow root under `scope`, whose aria-label or <label> is `name` (or starts with it); null if none. */
  function lookFor(name, { prefix = false, scope = document } = {}) {
    for (const el of everyElement(scope)) {
      const n = nameOf(el);
      if (n !== null && (prefix ? n.startsWith(name) : n === name)) return el;
    }
    return null;
  }
  /** lookFor(), for an element that must be there now. */
  function find(name, options) {
    const el = lookFor(name, options);
    if (el === null) throw new Error(`no element named “${name}”`);
    return el;
  }

  window.__engine = {
    problems,
    arrowKeys: () => arrowEvents.map((e) => ({ key: e.key, handled: e.defaultPrevented })),
    find,
    // For polls (Page.waitFor): a panel that is still loading is not there yet, which is no error.
    lookFor,
    simdValidates: () => WebAssembly.validate(SIMD_MODULE),
    relaxedValidates: () => WebAssembly.validate(RELAXED_MODULE),
    /**
     * Scrolls the element into view; → its centre in viewport pixels, for real pointer input.
     * Once it stays put: labs render when first scrolled into view and push what follows down.
     */
    async centre(el) {
      let last = null;
      for (let tries = 0; tries < 40; tries++) {
        el.scrollIntoView({ block: 'center', inline: 'center' });
        await new Promise((resolve) => setTimeout(resolve, 40));
        const r = el.getBoundingClientRect();
        const at = { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };
        if (last?.x === at.x && last?.y === at.y) return at;
        last = at;
      }
      throw new Error(`${nameOf(el) ?? el.tagName} keeps moving`);
    },
    /** The accessible name of the focused element, looking into shadow roots. */
    focusedName() {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el ? nameOf(el) : null;
    },
    text: (name, options) => { const el = find(name, options); return el.value ?? el.textContent; },
  };
})();
