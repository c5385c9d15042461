// The calculator's API: attention with every intermediate step, the masks' reasons, the cost
// of a layer and the plot's convex hull, over the calculator's functions of the core
// (bindings/embind.cpp, in both the calculator's module and the full one). Types: attention.d.ts.

import { argument, describe, fail, optionsOf, toBoolean, unwrap, withDefault } from './arguments.js';
import { sizeRules, toCount, toMask, toMatrix, toWhole, toRows, toScale } from './convert.js';

/** The calculator's methods of Attention, on a loaded core. */
export class Calculator {
  #core;
  #limits;           // the core's documented limits (limits())
  #sizes;            // those limits with the core's own checks of sizes (see sizeRules)
  #hiddenBy;         // MaskReason bits → the names of the rules they stand for (see reasonNames)

  constructor(core) {
    this.#core = core;
    this.#limits = Object.freeze({ ...core.limits() });
    this.#sizes = sizeRules(core, this.#limits);
    this.#hiddenBy = reasonNames(core.maskReasonBits());
  }

  /** The core's size limits, the ranges every integer argument is checked against. See attention.d.ts. */
  limits() {
    return this.#limits;
  }

  /**
   * Scaled dot-product attention with every intermediate step.
   * See attention.d.ts for the options and the result.
   */
  attention(options) {
    const o = optionsOf(options, 'attention', '{ q, k, v }');
    const S = this.#sizes;
    const Q = argument('Q', () => toMatrix(o.q, 'Q', S));
    const K = argument('K', () => toMatrix(o.k, 'K', S));
    const V = argument('V', () => toMatrix(o.v, 'V', S));
    const mask = argument('mask', () => toMask(o.mask, Q.rows, K.rows, S));
    const { scaling, scale } = argument('scale', () => toScale(o.scale));
    const maskAfterSoftmax = argument('maskAfterSoftmax', () => toBoolean(withDefault(o.maskAfterSoftmax, false), 'maskAfterSoftmax'));
    // The plot's two columns of V (y null: one coordinate), so its hull comes with this call.
    const hull = o.hullAxes === undefined ? {} : argument('hullAxes', () => {
      if (!Array.isArray(o.hullAxes) || o.hullAxes.length !== 2) fail(`hullAxes must be [x, y] or [x, null], two columns of V (got ${describe(o.hullAxes)})`);
      const [x, y] = o.hullAxes;
      return { hullX: toWhole(x, 'hullAxes[0]'), hullY: y === null ? -1 : toWhole(y, 'hullAxes[1]') };
    });
    const raw = unwrap(
      this.#core.attention({
        q: Q.data, qRows: Q.rows, qCols: Q.cols,
        k: K.data, kRows: K.rows, kCols: K.cols,
        v: V.data, vRows: V.rows, vCols: V.cols,
        ...mask, scaling, scale, maskAfterSoftmax, ...hull,
      }),
    );
    const result = attentionResult(raw, Q.rows, K.rows, V.cols, this.#hiddenBy);
    result.checks = {
      rowSums: Array.from(raw.checks.rowSums),
      rowSumsToOne: Array.from(raw.checks.rowSumsToOne, Boolean),
      outputInHull: Array.from(raw.checks.outputInHull, Boolean),
      hull: raw.checks.hull,
      hullExact: raw.checks.hullExact,
      float64MaxAbsDiff: raw.checks.float64MaxAbsDiff,
      verified: raw.checks.verified,
      verifiedTolerance: raw.checks.verifiedTolerance,
      valueScale: raw.checks.valueScale,
    };
    if (raw.checks.plotHull) result.checks.plotHull = raw.checks.plotHull;
    return result;
  }

  /**
   * Why each of n×m cells is hidden by `mask` (any form attention() takes), computed by the core
   * from the mask alone: hiddenBy[i][j] lists 'causal', 'padding', 'custom' (those that hide key j
   * from query i, in that order; [] when visible), as attention()'s result.hiddenBy does.
   * m defaults to n.
   */
  maskReasons(options) {
    const o = optionsOf(options, 'maskReasons', "{ mask: 'causal', n: 3 }");
    const S = this.#sizes;
    const n = argument('n', () => toWhole(o.n, 'n'));
    const m = argument('m', () => toWhole(withDefault(o.m, n), 'm'));
    unwrap(this.#core.checkScoreShape({ n, m })); // the core's range (at least 1, n·m within limits), before the mask is read
    const mask = argument('mask', () => toMask(o.mask, n, m, S));
    const raw = unwrap(this.#core.maskReasons({ n, m, ...mask }));
    return toRows(raw.hidden, n, m).map((row) => row.map((bits) => this.#hiddenBy[bits]));
  }

  /**
   * FLOPs of each product and bytes of the attention matrices; m defaults to n. Also the
   * self-attention length where the attention products overtake the projections (crossoverN =
   * 2·dModel) and which side dominates at these sizes ('projections' on a tie). A count above
   * 2⁵³ − 1 is refused: a JS number could not hold it exactly.
   */
  cost(options) {
    const o = optionsOf(options, 'cost', '{ n, dModel }');
    const n = argument('n', () => toCount(o.n, 'n', this.#sizes));
    const m = argument('m', () => toCount(withDefault(o.m, n), 'm', this.#sizes));
    const dModel = argument('dModel', () => toCount(o.dModel, 'dModel', this.#sizes));
    const heads = argument('heads', () => toWhole(withDefault(o.heads, 1), 'heads'));
    const { projectionFlops, scoreFlops, valueFlops, outputFlops, attentionBytes, crossoverN, dominant } = unwrap(
      this.#core.cost(n, m, dModel, heads),
    );
    return { projectionFlops, scoreFlops, valueFlops, outputFlops, attentionBytes, crossoverN, dominant };
  }

  /**
   * Corners of the convex hull of 2-D points, as indices, counter-clockwise. Collinear points
   * give the two ends, equal points one index. Every coordinate must be finite (the core names
   * the first that is not).
   */
  convexHull(points) {
    const P = argument('points', () => toMatrix(points, 'points', this.#sizes));
    return unwrap(this.#core.convexHull({ points: P.data, m: P.rows, cols: P.cols })).hull;
  }

  /** Bytes currently allocated in the core's wasm heap. */
  heapBytesInUse() {
    return this.#core.heapBytesInUse();
  }
}

// The core's fields under the same names (bindings/embind.cpp), as JS arrays.
export function attentionResult(raw, n, m, dv, hiddenBy) {
  const reasons = toRows(raw.hidden, n, m); // MaskReason bits per cell (src/mask.hpp)
  return {
    scale: raw.scale,
    scores: toRows(raw.scores, n, m),
    scaledBeforeMask: toRows(raw.scaledBeforeMask, n, m),
    scaled: toRows(raw.scaled, n, m),
    rowMax: Array.from(raw.rowMax),
    exp: toRows(raw.exp, n, m),
    rowSum: Array.from(raw.rowSum),
    weights: toRows(raw.weights, n, m),
    output: toRows(raw.output, n, dv),
    hidden: reasons.map((row) => row.map(Boolean)),
    hiddenBy: reasons.map((row) => row.map((bits) => hiddenBy[bits])),
    fullyMasked: Array.from(raw.fullyMasked, Boolean),
  };
}

// The core's MaskReason bits by rule name ({ causal: 1, padding: 2, custom: 4 }, maskReasonBits())
// → for each combination of bits one frozen list of the names they stand for, in bit order and
// shared by every cell.
export function reasonNames(bits) {
  const rules = Object.entries(bits).sort(([, a], [, b]) => a - b);
  const all = rules.reduce((sum, [, bit]) => sum | bit, 0);
  return Array.from({ length: all + 1 }, (_, cell) =>
    Object.freeze(rules.filter(([, bit]) => cell & bit).map(([name]) => name)));
}
