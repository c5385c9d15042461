// libFuzzer harness: attn::attention (the explaining path) on shapes at and past the limits,
// every mask kind, the pitfalls and hostile numbers. It must throw attn::Error or return finite
// intermediates that agree with the float64 oracle (agreement.hpp); when the streaming path can
// compute the same thing (no mask or causal, no pitfall), both must throw or agree (item 9).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "fuzz/agreement.hpp"
#include "fuzz/attention_case.hpp"
#include "fuzz/fuzz_input.hpp"
#include "kernels/streaming_attention.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const fuzz::AttentionCase c = fuzz::decode_attention_case(in, 8, 8);

  attn::AttentionResult r;
  bool threw = false;
  try {
    r = attn::attention(c.q, c.k, c.v, c.options);
  } catch (const attn::Error&) {
    threw = true;
  }
  if (!c.valid) {
    FUZZ_CHECK(threw, "attention() accepted an input outside its documented rules");
    return 0;
  }
  const fuzz::Reference ref = fuzz::reference(c);
  if (threw) {
    FUZZ_CHECK(!ref.representable(), "attention() threw on an input whose every step fits float32");
  } else {
    fuzz::check_attention_result(r, ref, c.float_scale);
  }

  if (!c.streamable()) return 0;
  static attn::StreamingWorkspace workspace;  // reused across inputs, as the bindings reuse it
  std::vector<float> out(c.q.rows * c.v.cols);
  bool stream_threw = false;
  try {
    attn::attention_output(c.q.data.data(), c.k.data.data(), c.v.data.data(),
                           {c.q.rows, c.k.rows, c.q.cols, c.v.cols},
                           c.options.mask.causal_only(), out.data(), workspace);
  } catch (const attn::Error&) {
    stream_threw = true;
  }
  if (threw != stream_threw) {
    fuzz::fail("explaining and streaming paths disagree on whether the input is acceptable",
               threw ? "attention() threw, attention_output() returned" : "attention_output() threw, attention() returned");
  }
  if (!threw) {
    fuzz::check_output(out.data(), ref, "attention_output()");
    fuzz::check_paths_agree(r.output.data.data(), out.data(), ref);
  }
  return 0;
}
