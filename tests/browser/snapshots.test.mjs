// What the drawings draw: the weights' heatmap (web/shared/heatmap.js), the hull plot
// (web/calc/plot/plot.js) and the learned heads' heatmaps (web/labs/head-views/learned-head.js), each built in
// Chromium (they need a DOM) from the core's own numbers, serialised, every number rounded to 3
// decimals and the per-page id counters taken out, and compared with tests/snapshots/NAME.svg.
// A mismatch writes NAME-changed.svg beside the snapshot, to look at, and fails; when the change
// is meant, move it over the snapshot and commit it. A missing snapshot is written, and fails.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { noProblemsAfterEach, openPage } from './chromium.mjs';
import { servedWeb } from './served.mjs';

const SNAPSHOTS = new URL('../snapshots/', import.meta.url);

/** The SVG as stored: numbers to 3 decimals, counters' ids made constant, one element a line. */
export function normalise(text) {
  return `${text
    .replace(/-?\d*\.\d+(?:e[-+]?\d+)?/gi, (x) => String(Number(Number(x).toFixed(3)) || 0))
    .replace(/\b(viridis|learned-head)-\d+/g, '$1-N')
    .replace(/></g, '>\n<')}\n`;
}

/** '' when `svg` is its snapshot's; else what differs, and the file written to look at. */
function snapshot(name, svg) {
  const file = new URL(`${name}.svg`, SNAPSHOTS);
  const changed = new URL(`${name}-changed.svg`, SNAPSHOTS);
  const actual = normalise(svg);
  if (!existsSync(file)) {
    mkdirSync(SNAPSHOTS, { recursive: true });
    writeFileSync(file, actual);
    return `no snapshot tests/snapshots/${name}.svg: written now; look at it, then commit it`;
  }
  if (readFileSync(file, 'utf8') === actual) {
    rmSync(changed, { force: true });
    return '';
  }
  writeFileSync(changed, actual);
  return `${name}.svg differs from its snapshot: see tests/snapshots/${name}-changed.svg`;
}

/** Every drawing against its snapshot, each one written where it differs. */
const expectSnapshots = (drawings) => assert.deepEqual(drawings.map(([name, svg]) => snapshot(name, svg)).filter(Boolean), []);

describe('SVG snapshots of the heatmap, the hull plot and the learned heads', () => {
  const env = servedWeb();
  noProblemsAfterEach();

  // A blank page on the server, so the page imports web/'s modules as the element does.
  async function blank() {
    const { context, page } = await openPage(env.browser);
    const url = `${env.url}snapshots.html`;
    await context.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Snapshots</title></head><body></body></html>' }));
    await page.goto(url);
    return { context, page };
  }

  it('the weights heatmap of the worked example: plain, with the causal mask hatched, and with token labels and no values', async () => {
    const { context, page } = await blank();
    try {
      const svgs = await page.evaluate(async () => {
        const { heatmapSvg } = await import('./shared/heatmap.js');
        const { loadAttention } = await import('./attention.js');
        const attn = await loadAttention();
        const q = [[1, 1], [0, 1], [-1, 0]], k = [[1, 0], [0, 1], [-1, 0]], v = [[1, 0], [0, 1], [1, 1]];
        const plain = attn.attention({ q, k, v });
        const causal = attn.attention({ q, k, v, mask: 'causal' });
        const text = (e) => new XMLSerializer().serializeToString(e);
        return {
          plain: text(heatmapSvg(plain.weights, plain.hidden)),
          causal: text(heatmapSvg(causal.weights, causal.hidden)),
          tokens: text(heatmapSvg(causal.weights, causal.hidden, { title: 'Tokens', cell: 20, values: false, rowLabels: ['the', 'cat', 'sat'], colLabels: ['the', 'cat', 'sat'] })),
        };
      });
      expectSnapshots([['heatmap-worked', svgs.plain], ['heatmap-worked-causal', svgs.causal], ['heatmap-tokens', svgs.tokens]]);
    } finally {
      await context.close();
    }
  });

  it('the hull plot: the worked example (outputs inside), the mask-after-softmax pitfall (outside), and d_v = 3 projected', async () => {
    const { context, page } = await blank();
    try {
      const svgs = await page.evaluate(async () => {
        const { HullPlot } = await import('./calc/plot/plot.js');
        const { coreInputs, fromHash } = await import('./calc/state.js');
        const { loadAttention } = await import('./attention.js');
        const attn = await loadAttention();
        const draw = (hash) => {
          const { state } = fromHash(hash);
          const result = attn.attention(coreInputs(state));
          const [ax, ay] = state.axes;
          const hull = state.v[0].length === 2 ? result.checks.hull : attn.convexHull(state.v.map((row) => [row[ax], row[ay]]));
          const plot = new HullPlot({ onMove() {}, onAxes() {}, onSave() {} });
          plot.update(state, result, hull);
          return new XMLSerializer().serializeToString(plot.root);
        };
        const worked = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1';
        return {
          worked: draw(`#${worked}`),
          after: draw(`#${worked}&causal=1&pad=3&pitfall=mask-after-softmax`),
          projected: draw('#q=1,0,1;0,1,0&k=1,0,0;0,1,1&v=1,2,0;-1,0,3&axes=2,3'),
        };
      });
      expectSnapshots([['hull-worked', svgs.worked], ['hull-mask-after-softmax', svgs.after], ['hull-projected', svgs.projected]]);
    } finally {
      await context.close();
    }
  });

  it('the learned heads\' heatmaps: each head of the shipped checkpoint on "fox fox"', async () => {
    const { context, page } = await blank();
    try {
      const svgs = await page.evaluate(async () => {
        const { HeadView } = await import('./labs/head-views/learned-head.js');
        const { loadAttention } = await import('./attention.js');
        const attn = await loadAttention();
        const run = (await attn.learnedModel()).run('fox fox');
        return run.layers.flatMap((layer, l) => layer.heads.map((data, h) => {
          const view = new HeadView({ layer: l, head: h, onSelect() {} });
          view.update({ tokens: run.tokens, data });
          return [`learned-layer${l + 1}-head${h + 1}`, new XMLSerializer().serializeToString(view.map)];
        }));
      });
      assert.equal(svgs.length, 4, 'the checkpoint\'s 2 layers of 2 heads');
      expectSnapshots(svgs);
    } finally {
      await context.close();
    }
  });
});
