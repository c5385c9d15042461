#include "cost.hpp"

#include <string>

#include "error.hpp"
#include "validate.hpp"

namespace attn {

namespace {

// a·b, refusing to wrap around: a caller asking about n = 10^12 gets an error, not nonsense.
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) throw Error("cost does not fit in 64 bits; use smaller sizes");
  return a * b;
}

void require_d_model(std::uint64_t d_model) {
  if (d_model == 0) throw Error("d_model must be at least 1");
}

}  // namespace

std::uint64_t parameter_count(std::uint64_t d_model, std::uint64_t heads, bool bias) {
  require_d_model(d_model);
  validate_heads(d_model, heads);
  const std::uint64_t weights = mul(4, mul(d_model, d_model));
  return bias ? weights + mul(4, d_model) : weights;
}

const char* to_string(Dominant dominant) {
  return dominant == Dominant::attention ? "attention" : "projections";
}

std::uint64_t crossover_n(std::uint64_t d_model) {
  require_d_model(d_model);
  return mul(2, d_model);
}

Cost cost(std::uint64_t n, std::uint64_t m, std::uint64_t d_model, std::uint64_t heads) {
  require_d_model(d_model);
  if (n == 0 || m == 0) throw Error("n and m must be at least 1");
  validate_heads(d_model, heads);
  const std::uint64_t d2 = mul(d_model, d_model);
  Cost c;
  c.projection_flops = mul(2, mul(d2, n + mul(2, m)));
  c.score_flops = mul(2, mul(mul(n, m), d_model));
  c.value_flops = c.score_flops;
  c.output_flops = mul(2, mul(n, d2));
  c.attention_bytes = mul(4, mul(heads, mul(n, m)));
  // Each side is at most twice a checked product; compare halves so the sums cannot wrap.
  const std::uint64_t attention = c.score_flops / 2 + c.value_flops / 2;
  const std::uint64_t projections = c.projection_flops / 2 + c.output_flops / 2;
  c.dominant = attention > projections ? Dominant::attention : Dominant::projections;
  return c;
}

}  // namespace attn
