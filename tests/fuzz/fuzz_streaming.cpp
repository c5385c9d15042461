// libFuzzer harness: attn::attention_output (the streaming path) and validate_output_shape on
// any declared shape, SIZE_MAX included (item 11: a size computation that wraps must not let a
// shape through), causal or not, with hostile numbers and the workspace reused across inputs.
// It must throw attn::Error or agree with the float64 oracle, and with the explaining path
// wherever that path can take the input: both throw or both agree (items 9 and 10).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "fuzz/agreement.hpp"
#include "fuzz/attention_case.hpp"
#include "fuzz/fuzz_input.hpp"
#include "limits.hpp"
#include "kernels/streaming_attention.hpp"

namespace {

using attn::limits::kMaxCols;
using attn::limits::kMaxRows;
using attn::limits::kMaxStreamingFloats;

// (n + m)·(d + d_v), exactly: Q, K, V and the output together.
unsigned __int128 floats(const attn::OutputShape& s) {
  return (static_cast<unsigned __int128>(s.n) + s.m) * (static_cast<unsigned __int128>(s.d) + s.dv);
}

std::string describe(const attn::OutputShape& s) {
  return "{n " + std::to_string(s.n) + ", m " + std::to_string(s.m) + ", d " + std::to_string(s.d) + ", d_v " +
         std::to_string(s.dv) + "}";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const bool causal = in.pick(2) == 1;
  attn::OutputShape s;
  s.n = in.size(8, kMaxRows);
  s.m = in.size(8, kMaxRows);
  s.d = in.size(8, kMaxCols);
  s.dv = in.size(8, kMaxCols);

  // The size check alone, on the shape as declared.
  const bool too_many = floats(s) > kMaxStreamingFloats;
  const bool within = s.n >= 1 && s.m >= 1 && s.d >= 1 && s.dv >= 1 && s.n <= kMaxRows && s.m <= kMaxRows &&
                      s.d <= kMaxCols && s.dv <= kMaxCols && !too_many;
  bool shape_threw = false;
  try {
    attn::validate_output_shape(s);
  } catch (const attn::Error&) {
    shape_threw = true;
  }
  if (too_many) FUZZ_CHECK(shape_threw, "validate_output_shape() accepted a shape over the limit", describe(s));
  if (within) FUZZ_CHECK(!shape_threw, "validate_output_shape() refused a shape within the limits", describe(s));

  static attn::StreamingWorkspace workspace;
  if (!within) {
    // Buffers as large as the shape says while it is within the total limit (the core may read
    // them before it finds the size or row it refuses), left uninitialized: cheap even at 256 MiB.
    // Over the total, a token 16 floats: the core must refuse before it reads anything.
    const bool readable = !too_many;
    for (std::size_t floats_in : {s.n * s.d, s.m * s.d, s.m * s.dv, s.n * s.dv}) {
      if (readable && floats_in > fuzz::kFill) return 0;  // too slow to allocate on every such input
    }
    auto buffer = [&](std::size_t rows, std::size_t cols) {
      return std::unique_ptr<float[]>(new float[readable ? std::max<std::size_t>(1, rows * cols) : 16]);
    };
    const auto q = buffer(s.n, s.d), k = buffer(s.m, s.d), v = buffer(s.m, s.dv), out = buffer(s.n, s.dv);
    bool threw = false;
    try {
      attn::attention_output(q.get(), k.get(), v.get(), s, causal, out.get(), workspace);
    } catch (const attn::Error&) {
      threw = true;
    }
    FUZZ_CHECK(threw, "attention_output() accepted a shape outside the limits", describe(s));
    return 0;
  }

  // Within the limits: shrink to what one execution can afford, keeping the proportions' spirit.
  while (s.n * s.m * (s.d + s.dv) > fuzz::kWork / 2 || floats(s) > fuzz::kFill) {
    if (s.n >= s.m) s.n = (s.n + 1) / 2; else s.m = (s.m + 1) / 2;
    if (s.n == 1 && s.m == 1) break;
  }
  const attn::Matrix q = in.matrix(s.n, s.d), k = in.matrix(s.m, s.d), v = in.matrix(s.m, s.dv);
  const bool finite = fuzz::all_finite(q.data) && fuzz::all_finite(k.data) && fuzz::all_finite(v.data);

  std::vector<float> out(s.n * s.dv);
  bool threw = false;
  try {
    attn::attention_output(q.data.data(), k.data.data(), v.data.data(), s, causal, out.data(), workspace);
  } catch (const attn::Error&) {
    threw = true;
  }
  if (!finite) {
    FUZZ_CHECK(threw, "attention_output() accepted NaN or Infinity");
    return 0;
  }
  std::vector<std::uint8_t> hidden(s.n * s.m, 0);
  if (causal) {
    for (std::size_t i = 0; i < s.n; ++i) {
      for (std::size_t j = i + 1; j < s.m; ++j) hidden[i * s.m + j] = 1;
    }
  }
  const fuzz::Reference ref = fuzz::reference(q, k, v, hidden, 1.0 / std::sqrt(double(s.d)), false);
  if (threw) {
    FUZZ_CHECK(!ref.representable(), "attention_output() threw on an input whose every step fits float32");
  } else {
    fuzz::check_output(out.data(), ref, "attention_output()");
  }

  if (s.n * s.m > attn::limits::kMaxScoreEntries) return 0;  // beyond the explaining path's own limit
  attn::AttentionOptions options;
  options.mask = causal ? attn::Mask::causal() : attn::Mask::none();
  attn::AttentionResult r;
  bool explain_threw = false;
  try {
    r = attn::attention(q, k, v, options);
  } catch (const attn::Error&) {
    explain_threw = true;
  }
  if (threw != explain_threw) {
    fuzz::fail("explaining and streaming paths disagree on whether the input is acceptable",
               threw ? "attention_output() threw, attention() returned" : "attention() threw, attention_output() returned");
  }
  if (!threw) fuzz::check_paths_agree(r.output.data.data(), out.data(), ref);
  return 0;
}
