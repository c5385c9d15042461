// Tiny DOM builders. Text goes in through textContent only: nothing here parses HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, props, children) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') el.textContent = value;
    else if (key === 'class') el.setAttribute('class', value);
    else if (key === 'on') for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    // HTML properties such as readOnly or checked; SVG sizes are attributes, never properties.
    else if (!(el instanceof SVGElement) && key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** h('button', { class: 'x', on: { click } }, 'Label') */
export function h(tag, props, ...children) {
  return build(document.createElement(tag), props, children);
}

/** The same for SVG elements. */
export function svg(tag, props, ...children) {
  return build(document.createElementNS(SVG_NS, tag), props, children);
}

// One constructed stylesheet per text, shared by every element of the page: adopted sheets are
// not governed by the page's CSP style-src (no inline style), and are parsed once, not once per
// element. (Each window has its own copy of this module, so a sheet never crosses documents.)
const sheets = new Map();

/**
 * Styles a shadow root with `css`, after the sheets it already has. Where constructed
 * stylesheets are missing (Safari before 16.4), a <style> element instead, which a page with a
 * strict CSP blocks: the widget then works unstyled.
 */
export function adoptStyles(root, css) {
  if ('adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype) {
    let sheet = sheets.get(css);
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      sheets.set(css, sheet);
    }
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    return;
  }
  root.append(h('style', { text: css }));
}

/** Sub/superscript digits for labels such as v₁, z₂. */
const SUB = '₀₁₂₃₄₅₆₇₈₉';
export const sub = (k) => String(k).replace(/\d/g, (d) => SUB[d]);
