// libFuzzer harness: attn::multi_head_attention and parameter_count. X, the four weights and
// biases at and past the limits (wrong shapes and bias lengths now and then), heads from 0 to
// 2^64 − 1, every mask kind, hostile numbers. It must throw attn::Error or return finite results
// in which every stage agrees with double precision: the projections, each head against the
// float64 oracle on that head's own Q, K, V, the concatenation, and the output through W_O.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cost.hpp"
#include "error.hpp"
#include "fuzz/agreement.hpp"
#include "fuzz/attention_case.hpp"
#include "fuzz/fuzz_input.hpp"
#include "limits.hpp"
#include "multihead.hpp"

namespace {

using attn::limits::kMaxCols;
using attn::limits::kMaxHeads;
using attn::limits::kMaxRows;

std::size_t decode_heads(fuzz::Input& in, std::size_t d) {
  switch (in.pick(8)) {
    case 0: return 0;
    case 1: return d + 1;
    case 2: return kMaxHeads + in.pick(2);
    case 3: return (std::size_t{1} << 32) + 1;  // item 7's value, which wrapped in JS
    case 4: return std::size_t(in.u64());
    default: {
      // a divisor of d: the common case
      std::size_t h = 1 + in.pick(8);
      while (d % h != 0) --h;
      return h;
    }
  }
}

// x·w + b in double next to the core's float32 result; each entry within γ_{d+2}·Σ|x·w| + |b|.
void check_projection(const attn::Matrix& got, const attn::Matrix& x, const attn::Matrix& w,
                      const std::vector<float>& b, const char* name) {
  FUZZ_CHECK(got.rows == x.rows && got.cols == w.cols, "multi_head_attention()", std::string(name) + " has the wrong shape");
  for (std::size_t i = 0; i < x.rows; ++i) {
    for (std::size_t j = 0; j < w.cols; ++j) {
      double want = b.empty() ? 0.0 : double(b[j]), abs_sum = b.empty() ? 0.0 : std::fabs(double(b[j]));
      for (std::size_t t = 0; t < x.cols; ++t) {
        want += double(x(i, t)) * double(w(t, j));
        abs_sum += std::fabs(double(x(i, t)) * double(w(t, j)));
      }
      const double allowed = fuzz::gamma(double(x.cols + 2)) * abs_sum + double(x.cols + 1) * fuzz::kDenormal;
      if (!(std::fabs(double(got(i, j)) - want) <= allowed)) {
        fuzz::fail("multi_head_attention()", fuzz::where(name, i, j, got(i, j), want, allowed));
      }
    }
  }
}

attn::Matrix copy_columns(const attn::Matrix& m, std::size_t first, std::size_t count) {
  attn::Matrix out(m.rows, count);
  for (std::size_t i = 0; i < m.rows; ++i) {
    for (std::size_t j = 0; j < count; ++j) out(i, j) = m(i, first + j);
  }
  return out;
}

void check_parameter_count(fuzz::Input& in) {
  const std::uint64_t d = in.pick(2) ? in.u64() : in.u16(), heads = 1 + in.pick(4);
  const bool bias = in.pick(2) == 1;
  // Exact in 128 bits for d_model up to 2^32; past that 4d² is over 2^66 anyway.
  const bool huge = d > (std::uint64_t{1} << 32);
  const unsigned __int128 exact = 4 * static_cast<unsigned __int128>(d) * d + (bias ? 4 * static_cast<unsigned __int128>(d) : 0);
  try {
    const std::uint64_t got = attn::parameter_count(d, heads, bias);
    FUZZ_CHECK(!huge && got == exact, "parameter_count() is not exact", "d_model " + std::to_string(d));
    // The JS API hands it on as a double: it must be exact there too (item 11); the core
    // refuses counts of 2^53 or more.
    FUZZ_CHECK(double(got) == double(exact) && std::uint64_t(double(got)) == got,
                  "parameter_count() returned a count that a double cannot hold exactly", "d_model " + std::to_string(d));
  } catch (const attn::Error&) {
    FUZZ_CHECK(d == 0 || d % heads != 0 || huge || exact >= (static_cast<unsigned __int128>(1) << 53),
                  "parameter_count() refused a valid d_model", "d_model " + std::to_string(d));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  check_parameter_count(in);

  std::size_t n = in.size(6, kMaxRows), d = in.size(8, kMaxCols);
  // W is d×d: at the limit (4096) 64 MiB per weight. Large d_model only one time in 16, and
  // then with few tokens, so that most executions stay cheap.
  if (d > 256 && in.pick(16) != 0) d = 1 + d % 256;
  fuzz::fit(n, d, kMaxRows, kMaxCols);
  while (n > 1 && n * d * d > fuzz::kWork / 4) n = (n + 1) / 2;
  const std::size_t heads = decode_heads(in, d == 0 ? 1 : d);
  const std::size_t wrong = in.pick(32);  // 0: W_K is (d+1)×d; 1: b_V has d+1 entries
  const attn::Matrix x = in.matrix(n, d);
  attn::MultiHeadParams p;
  p.wq = in.matrix(d, d);
  p.wk = in.matrix(wrong == 0 ? d + 1 : d, d);
  p.wv = in.matrix(d, d);
  p.wo = in.matrix(d, d);
  const bool bias = in.pick(2) == 1;
  if (bias) {
    p.bq = in.values(d);
    p.bk = in.values(d);
    p.bv = in.values(wrong == 1 ? d + 1 : d);
    p.bo = in.values(d);
  }
  p.heads = heads;
  const fuzz::DecodedMask mask = fuzz::decode_mask(in, n, n, attn::limits::kMaxScoreEntries);

  bool finite = fuzz::all_finite(x.data);
  for (const auto* w : {&p.wq.data, &p.wk.data, &p.wv.data, &p.wo.data, &p.bq, &p.bk, &p.bv, &p.bo}) {
    finite = finite && fuzz::all_finite(*w);
  }
  const bool valid = n >= 1 && d >= 1 && n <= kMaxRows && d <= kMaxCols && wrong != 0 && (wrong != 1 || !bias) && heads >= 1 &&
                     heads <= kMaxHeads && d % heads == 0 && double(heads) * double(n) * double(n) <= double(attn::limits::kMaxScoreEntries) &&
                     mask.valid && finite;

  attn::MultiHeadResult r;
  bool threw = false;
  try {
    r = attn::multi_head_attention(x, p, mask.mask);
  } catch (const attn::Error&) {
    threw = true;
  }
  if (!valid) {
    FUZZ_CHECK(threw, "multi_head_attention() accepted an input outside its documented rules",
               "n " + std::to_string(n) + ", d_model " + std::to_string(d) + ", heads " + std::to_string(heads) +
                   (wrong == 0 ? ", W_K (d+1)×d" : wrong == 1 && bias ? ", b_V of d+1" : "") + (mask.valid ? "" : ", bad mask") +
                   (finite ? "" : ", non-finite"));
    return 0;
  }
  // Every number within ±1e4 keeps every stage far from float32's range: the core must accept it.
  double largest = fuzz::max_abs(x.data);
  for (const auto* w : {&p.wq.data, &p.wk.data, &p.wv.data, &p.wo.data, &p.bq, &p.bk, &p.bv, &p.bo}) {
    largest = std::fmax(largest, fuzz::max_abs(*w));
  }
  if (threw) {
    FUZZ_CHECK(largest > 1e4, "multi_head_attention() threw on moderate numbers");
    return 0;
  }

  check_projection(r.q, x, p.wq, p.bq, "Q");
  check_projection(r.k, x, p.wk, p.bk, "K");
  check_projection(r.v, x, p.wv, p.bv, "V");
  FUZZ_CHECK(r.heads.size() == heads, "multi_head_attention()", "wrong number of heads");
  const std::size_t d_k = d / heads;
  const double scale = 1.0 / std::sqrt(double(d_k));
  FUZZ_CHECK(r.concat.rows == n && r.concat.cols == d, "multi_head_attention()", "concat has the wrong shape");
  for (std::size_t h = 0; h < heads; ++h) {
    const attn::Matrix q = copy_columns(r.q, h * d_k, d_k), k = copy_columns(r.k, h * d_k, d_k),
                       v = copy_columns(r.v, h * d_k, d_k);
    fuzz::check_attention_result(r.heads[h], fuzz::reference(q, k, v, mask.hidden, scale, false),
                                 1.0f / std::sqrt(float(d_k)));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d_k; ++j) {
        FUZZ_CHECK(r.concat(i, h * d_k + j) == r.heads[h].output(i, j), "multi_head_attention()",
                      "concat differs from head " + std::to_string(h + 1) + "'s output");
      }
    }
  }
  check_projection(r.output, r.concat, p.wo, p.bo, "Output");
  return 0;
}
