// Attention in plain JavaScript, for the benchmark's baselines. Both take row-major
// Float32Arrays (q, k, v: n×d) and return a Float32Array n×d.

/** As a lesson would write it: arrays of rows, the full score matrix, three loops each. */
export function naiveAttention(q, k, v, n, d) {
  const rows = (x) => Array.from({ length: n }, (_, i) => Array.from(x.subarray(i * d, (i + 1) * d)));
  const Q = rows(q), K = rows(k), V = rows(v);
  const scores = [];
  for (let i = 0; i < n; i++) {
    scores.push([]);
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let t = 0; t < d; t++) s += Q[i][t] * K[j][t];
      scores[i].push(s / Math.sqrt(d));
    }
  }
  const weights = scores.map((row) => {
    const max = Math.max(...row);
    const e = row.map((x) => Math.exp(x - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
  const out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < d; t++) {
      let z = 0;
      for (let j = 0; j < n; j++) z += weights[i][j] * V[j][t];
      out[i * d + t] = z;
    }
  }
  return out;
}

/** Typed arrays, one score row at a time, loops ordered for contiguous access. */
export function optimizedAttention(q, k, v, n, d) {
  const out = new Float32Array(n * d);
  const row = new Float64Array(n);
  const acc = new Float64Array(d);
  const scale = 1 / Math.sqrt(d);
  for (let i = 0; i < n; i++) {
    const qi = i * d;
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      const kj = j * d;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0, t = 0;
      for (; t + 4 <= d; t += 4) {
        s0 += q[qi + t] * k[kj + t];
        s1 += q[qi + t + 1] * k[kj + t + 1];
        s2 += q[qi + t + 2] * k[kj + t + 2];
        s3 += q[qi + t + 3] * k[kj + t + 3];
      }
      for (; t < d; t++) s0 += q[qi + t] * k[kj + t];
      const s = (s0 + s1 + s2 + s3) * scale;
      row[j] = s;
      if (s > max) max = s;
    }
    acc.fill(0);
    let sum = 0;
    for (let j = 0; j < n; j++) {
      const w = Math.exp(row[j] - max);
      sum += w;
      const vj = j * d;
      for (let t = 0; t < d; t++) acc[t] += w * v[vj + t];
    }
    for (let t = 0; t < d; t++) out[qi + t] = acc[t] / sum;
  }
  return out;
}
