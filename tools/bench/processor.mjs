// The processor a benchmark ran on: vendor, model, cores and SIMD flags, so that every figure
// in docs/performance.* names its machine. Linux's /proc/cpuinfo; elsewhere Node's os.cpus().
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

// The flags that decide how fast the kernels can be (natively; wasm SIMD is 4 lanes anywhere).
const SIMD = /^(sse\d?(_\d)?|ssse3|sse4[a_]\d?|avx\w*|fma\w*|f16c|amx\w*|asimd\w*|neon|sve\w*)$/;

export function processorRecord() {
  const record = { vendor: 'unknown', model: cpus()[0]?.model?.trim() ?? 'unknown', cores: cpus().length, simd: [] };
  let info = '';
  try {
    info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return record;
  }
  const field = (name) => info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1]?.trim();
  record.vendor = field('vendor_id') ?? field('CPU implementer') ?? record.vendor;
  record.model = field('model name') ?? record.model;
  record.simd = (field('flags') ?? field('Features') ?? '').split(/\s+/).filter((flag) => SIMD.test(flag));
  return record;
}

// "Intel(R) Xeon(R) Processor (GenuineIntel, 2 cores; avx2 avx512f …)": one line for a report.
export function describeProcessor(p) {
  const wide = p.simd.filter((flag) => /^(avx2|avx512f|avx512_fp16|amx_tile|fma|sse4_2|asimd|sve)$/.test(flag));
  return `${p.model} (${p.vendor}, ${p.cores} cores${wide.length ? `; ${wide.join(', ')}` : ''})`;
}
