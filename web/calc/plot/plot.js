// The values' convex hull and the outputs inside it, as SVG. With d_v = 2 the plot is exact;
// otherwise it shows two chosen coordinates (a projection, which keeps outputs inside the
// projected hull). Value vectors can be dragged with a pointer or moved with arrow keys.
// An output whose query sees no key is 0 by definition, not a mix of the values: it is drawn
// hollow and named as exempt, and the captions claim only what holds for the others.
import { outputNames } from '../checks.js';
import { h, svg, sub } from '../../shared/dom.js';
import { format, formatInput } from '../../shared/format.js';

const SIZE = 320, PAD = 28;

export class HullPlot {
  /**
   * @param {(j: number, x: number, y: number | null) => void} o.onMove   value j moved to (x, y)
   * @param {(axes: number[]) => void} o.onAxes                           other coordinates chosen
   * @param {(svg: SVGElement) => void} o.onSave
   */
  constructor({ onMove, onAxes, onSave }) {
    this.onMove = onMove;
    this.onAxes = onAxes;
    this.root = svg('svg', { viewBox: `0 0 ${SIZE} ${SIZE}`, class: 'plot', role: 'group', 'aria-label': 'Value vectors, their convex hull and the outputs' });
    this.note = h('p', { class: 'plot-note' });
    this.axisX = h('select', { 'aria-label': 'Plot x coordinate', on: { change: () => this.#axesChanged() } });
    this.axisY = h('select', { 'aria-label': 'Plot y coordinate', on: { change: () => this.#axesChanged() } });
    this.axes = h('p', { class: 'plot-axes' }, 'Coordinates: x ', this.axisX, ' y ', this.axisY);
    const save = h('button', { type: 'button', class: 'small', text: 'Save plot as SVG', on: { click: () => onSave(this.root) } });
    this.caption = h('figcaption', { text: 'Outputs inside the convex hull of the values' });
    this.element = h('figure', { class: 'plot-figure' }, this.caption, this.root, this.note, this.axes, save);
    this.dragging = null; // { j, frozen bounds } while a pointer drags a value
    this.drawn = null;    // the last update's arguments, to refit once a drag ends
    this.layers = { frame: svg('g'), hull: svg('g'), outputs: svg('g'), values: svg('g') };
    this.root.append(...Object.values(this.layers));
    this.handles = [];
  }

  /** hull: indices of the value vectors on the hull (in the plotted coordinates). */
  update(state, result, hull, precision = 3) {
    this.drawn = [state, result, hull, precision];
    const dv = state.v[0].length;
    const [ax, ay] = dv === 1 ? [0, null] : state.axes;
    const point = (row) => [row[ax], ay === null ? 0 : row[ay]];
    const values = state.v.map(point);
    const outputs = result.output.map(point);
    const exempt = result.fullyMasked;
    const rows = outputs.map((_, i) => i);
    const exemptRows = rows.filter((i) => exempt[i]);
    const outside = rows.filter((i) => !exempt[i] && !result.checks.outputInHull[i]);
    this.#updateAxes(dv, state.axes);

    // An exempt output (at 0) does not widen the view: it is drawn only if 0 is in sight.
    const bounds = this.dragging?.bounds ?? fit([...values, ...outputs.filter((_, i) => !exempt[i])]);
    const X = (x) => PAD + ((x - bounds.x0) / bounds.span) * (SIZE - 2 * PAD);
    const Y = (y) => SIZE - PAD - ((y - bounds.y0) / bounds.span) * (SIZE - 2 * PAD);
    this.toData = (sx, sy) => [bounds.x0 + ((sx - PAD) / (SIZE - 2 * PAD)) * bounds.span, bounds.y0 + ((SIZE - PAD - sy) / (SIZE - 2 * PAD)) * bounds.span];
    this.bounds = bounds;
    const inView = ([x, y]) => X(x) >= 6 && X(x) <= SIZE - 6 && Y(y) >= 6 && Y(y) <= SIZE - 6; // the whole marker
    const unseen = exemptRows.filter((i) => !inView(outputs[i]));
    this.#describe({ dv, ax, ay, exemptRows, outside, unseen });

    const frame = [svg('rect', { x: 0.5, y: 0.5, width: SIZE - 1, height: SIZE - 1, fill: 'none', stroke: 'currentColor', 'stroke-opacity': 0.25 })];
    if (bounds.x0 < 0 && bounds.x0 + bounds.span > 0) frame.push(svg('line', { x1: X(0), x2: X(0), y1: 0, y2: SIZE, stroke: 'currentColor', 'stroke-opacity': 0.2 }));
    if (bounds.y0 < 0 && bounds.y0 + bounds.span > 0) frame.push(svg('line', { y1: Y(0), y2: Y(0), x1: 0, x2: SIZE, stroke: 'currentColor', 'stroke-opacity': 0.2 }));
    frame.push(svg('text', { x: 6, y: SIZE - 6, 'font-size': 10, fill: 'currentColor', 'fill-opacity': 0.6, text: `x: coordinate ${ax + 1}${ay === null ? '' : `, y: coordinate ${ay + 1}`}` }));
    this.layers.frame.replaceChildren(...frame);

    const corners = hull.map((j) => `${X(values[j][0])},${Y(values[j][1])}`).join(' ');
    this.layers.hull.replaceChildren(hull.length >= 3
      ? svg('polygon', { points: corners, fill: '#0b5394', 'fill-opacity': 0.12, stroke: '#0b5394', 'stroke-width': 1.5, class: 'hull' })
      : svg('polyline', { points: corners, fill: 'none', stroke: '#0b5394', 'stroke-width': 3, 'stroke-opacity': 0.5, class: 'hull' }));

    const marker = (x, y, paint) => svg('rect', { x: X(x) - 5, y: Y(y) - 5, width: 10, height: 10, transform: `rotate(45 ${X(x)} ${Y(y)})`, ...paint });
    this.layers.outputs.replaceChildren(...rows.filter((i) => !unseen.includes(i)).map((i) => {
      const [x, y] = outputs[i];
      const name = `z${sub(i + 1)}`;
      if (exempt[i]) {
        // Hollow and grey: a defined 0, not a point the hull check applies to.
        return svg('g', { class: 'output-point exempt', role: 'img', 'aria-label': `Output ${name} = 0, defined, no key visible; exempt from the hull check` },
          marker(x, y, { fill: 'none', stroke: 'currentColor', 'stroke-width': 2, 'stroke-dasharray': '3 2', 'stroke-opacity': 0.8 }),
          // The label is long: near the right edge it ends at the marker, near the bottom it
          // sits above it, so it stays on the canvas.
          svg('text', { x: X(x) > SIZE - 110 ? X(x) - 9 : X(x) + 9, y: Y(y) > SIZE - 24 ? Y(y) - 9 : Y(y) + 14, 'text-anchor': X(x) > SIZE - 110 ? 'end' : 'start', 'font-size': 12, fill: 'currentColor', 'fill-opacity': 0.75, text: `${name} = 0 (no key)` }));
      }
      const inside = !outside.includes(i);
      return svg('g', { class: `output-point${inside ? '' : ' outside'}`, role: 'img', 'aria-label': `Output ${name} at (${format(x, precision)}, ${format(y, precision)})${inside ? '' : ', outside the hull'}` },
        marker(x, y, { fill: inside ? '#e66100' : '#b00020' }),
        svg('text', { x: X(x) + 9, y: Y(y) + 14, 'font-size': 12, fill: 'currentColor', text: name }));
    }));

    // The value handles persist across updates, so a drag in progress keeps its element.
    this.values = values;
    this.lineOnly = ay === null;
    if (this.handles.length !== values.length) this.#buildHandles(values.length);
    values.forEach(([x, y], j) => {
      const [hit, dot, label] = this.handles[j].children;
      for (const c of [hit, dot]) {
        c.setAttribute('cx', X(x));
        c.setAttribute('cy', Y(y));
      }
      label.setAttribute('x', X(x) + 9);
      label.setAttribute('y', Y(y) - 8);
      this.handles[j].setAttribute('aria-label', `Value vector v${sub(j + 1)} at (${formatInput(x)}${ay === null ? '' : `, ${formatInput(y)}`}); drag it or use the arrow keys to move it`);
    });
  }

  // The caption and the note claim only what is true of this state: outputs outside the hull
  // (the mask-after-softmax pitfall) and exempt outputs are named, never covered by "every".
  #describe({ dv, ax, ay, exemptRows, outside, unseen }) {
    const are = (rows) => (rows.length === 1 ? 'is' : 'are');
    const lie = (rows) => (rows.length === 1 ? 'lies' : 'lie');
    const some = exemptRows.length > 0;
    this.caption.textContent = outside.length
      ? `Outputs and the convex hull of the values: ${outputNames(outside)} ${lie(outside)} outside`
      : `Outputs inside the convex hull of the values${some ? `, except ${outputNames(exemptRows)} (no key visible)` : ''}`;
    const lead = dv === 2
      ? 'Drag a value vector (or focus it and use the arrow keys)'
      : dv === 1
        ? 'd_v = 1: values and outputs lie on a line; the hull is the interval between the extreme values.'
        : `d_v = ${dv}: showing coordinates ${ax + 1} and ${ay + 1} only.`;
    const claim = outside.length
      ? `${outputNames(outside)} ${lie(outside)} outside the hull: see the checks.`
      : dv === 2
        ? `every ${some ? 'other ' : ''}output stays inside the hull.`
        : dv > 2 ? `The ${some ? 'other ' : ''}outputs stay inside this projection of the hull.` : '';
    const sentences = [dv === 2 ? `${lead}${outside.length ? '. ' : ': '}${claim}` : `${lead} ${claim}`.trim()];
    if (some) {
      const queries = exemptRows.map((i) => i + 1).join(', ');
      sentences.push(`${outputNames(exemptRows)} ${are(exemptRows)} 0 by definition (quer${exemptRows.length === 1 ? 'y' : 'ies'} ${queries} see${exemptRows.length === 1 ? 's' : ''} no key), exempt from the hull: ${unseen.length === exemptRows.length ? 'not drawn, as 0 lies outside this view' : 'drawn hollow'}.`);
    }
    this.note.textContent = sentences.join(' ');
  }

  #buildHandles(count) {
    this.handles = Array.from({ length: count }, (_, j) => {
      const handle = svg('g', { class: 'value-point', tabindex: 0, role: 'button', dataset: { j } },
        svg('circle', { r: 14, fill: 'transparent' }),
        svg('circle', { r: 6, fill: '#0b5394', stroke: '#ffffff', 'stroke-width': 1.5 }),
        svg('text', { 'font-size': 12, 'font-weight': 600, fill: 'currentColor', text: `v${sub(j + 1)}` }));
      handle.addEventListener('pointerdown', (e) => this.#startDrag(e, j));
      handle.addEventListener('keydown', (e) => this.#nudge(e, j));
      return handle;
    });
    this.layers.values.replaceChildren(...this.handles);
  }

  /** A read-only plot shows the values but does not let them move. */
  setReadonly(readonly) {
    this.readonly = readonly;
    for (const handle of this.handles) {
      handle.setAttribute('tabindex', readonly ? '-1' : '0');
      handle.classList.toggle('fixed', readonly);
    }
  }

  #updateAxes(dv, axes) {
    this.axes.hidden = dv <= 2;
    if (dv <= 2) return;
    for (const [select, value] of [[this.axisX, axes[0]], [this.axisY, axes[1]]]) {
      if (select.options.length !== dv) select.replaceChildren(...Array.from({ length: dv }, (_, t) => h('option', { value: t, text: `${t + 1}` })));
      select.value = String(value);
    }
  }

  #axesChanged() {
    this.onAxes([Number(this.axisX.value), Number(this.axisY.value)]);
  }

  // While dragging, the view stays still (frozen bounds) and the value stays inside it, so
  // neither it nor its output can leave the canvas; on release the view refits around them.
  #startDrag(e, j) {
    if (this.readonly) return;
    e.preventDefault();
    const target = e.currentTarget;
    target.setPointerCapture?.(e.pointerId);
    this.dragging = { j, bounds: this.bounds };
    const move = (ev) => {
      const p = this.root.createSVGPoint();
      p.x = ev.clientX;
      p.y = ev.clientY;
      const local = p.matrixTransform(this.root.getScreenCTM().inverse());
      const [x, y] = this.toData(clamp(local.x, PAD, SIZE - PAD), clamp(local.y, PAD, SIZE - PAD));
      const grain = step(this.dragging.bounds.span) / 10;
      this.onMove(j, round(x, grain), round(y, grain));
    };
    const listening = new AbortController();
    const end = () => {
      listening.abort();
      this.dragging = null;
      if (this.drawn) this.update(...this.drawn);
    };
    const { signal } = listening;
    target.addEventListener('pointermove', move, { signal });
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture']) target.addEventListener(type, end, { signal });
  }

  #nudge(e, j) {
    if (this.readonly) return;
    const [x, y] = this.values[j];
    const grain = step(this.bounds.span) / 10;
    const by = grain * (e.shiftKey ? 100 : 10);
    const d = { ArrowLeft: [-by, 0], ArrowRight: [by, 0], ArrowUp: [0, by], ArrowDown: [0, -by] }[e.key];
    if (!d || (this.lineOnly && d[1] !== 0)) return;
    e.preventDefault();
    this.onMove(j, round(x + d[0], grain), round(y + d[1], grain));
  }
}

const clamp = (x, lo, hi) => Math.min(Math.max(x, lo), hi);

// An arrow key's step: 0.1 at the lesson's scale (a view up to 13 wide), and a power of ten
// more for each tenfold wider view, so a value visibly moves at any size (with |V| ≈ 1e7 a step
// of 0.1 would not even change its float32).
const step = (span) => 10 ** Math.max(-1, Math.floor(Math.log10(span / 13)));

// Coordinates land on a grain of a tenth of a step (0.01 at the lesson's scale): readable in the
// grid, fine enough to drag smoothly, and as few digits at 1e7 as at 1.
function round(x, grain) {
  const per = Math.round(1 / grain); // whole for grains below 1: 0.01 → 100, exact in the division
  const rounded = grain >= 1 ? Math.round(x / grain) * grain : Math.round(x * per) / per;
  return rounded + 0; // no −0
}

// A square window around the points, with room for labels.
function fit(points) {
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const span = Math.max(x1 - x0, y1 - y0, 1) * 1.3;
  return { x0: (x0 + x1) / 2 - span / 2, y0: (y0 + y1) / 2 - span / 2, span };
}
