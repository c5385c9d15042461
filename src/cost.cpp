#include "cost.hpp"

#include <string>

#include "error.hpp"
#include "limits.hpp"
#include "validate.hpp"

namespace attn {

std::string count_too_large(const std::string& what) {
  return what + " is over 2^53 − 1 = " + std::to_string(limits::kMaxExactCount) +
         ", the largest whole number a double holds exactly; use smaller sizes";
}

namespace {

// Counts over limits::kMaxExactCount are refused, not rounded: GPT-scale inputs stay far below
// it, and a caller asking about n = 10^12 gets an error, not nonsense.
constexpr std::uint64_t kMaxExact = limits::kMaxExactCount;

[[noreturn]] void too_large(const char* what) { throw Error(count_too_large(what)); }

// a·b and a + b, refusing results over kMaxExact (so they cannot wrap around 64 bits either).
std::uint64_t mul(std::uint64_t a, std::uint64_t b, const char* what) {
  if (a != 0 && b > kMaxExact / a) too_large(what);
  return a * b;
}

std::uint64_t add(std::uint64_t a, std::uint64_t b, const char* what) {
  if (a > kMaxExact || b > kMaxExact - a) too_large(what);
  return a + b;
}

void require_d_model(std::uint64_t d_model) {
  if (d_model == 0) throw Error("d_model must be at least 1");
}

}  // namespace

std::uint64_t parameter_count(std::uint64_t d_model, std::uint64_t heads, bool bias) {
  require_d_model(d_model);
  validate_heads(d_model, heads);
  const char* what = "the parameter count 4·d_model² + 4·d_model";
  const std::uint64_t weights = mul(4, mul(d_model, d_model, what), what);
  return bias ? add(weights, mul(4, d_model, what), what) : weights;
}

const char* to_string(Dominant dominant) {
  return dominant == Dominant::attention ? "attention" : "projections";
}

std::uint64_t crossover_n(std::uint64_t d_model) {
  require_d_model(d_model);
  return mul(2, d_model, "the crossover length 2·d_model");
}

Cost cost(std::uint64_t n, std::uint64_t m, std::uint64_t d_model, std::uint64_t heads) {
  require_d_model(d_model);
  if (n == 0 || m == 0) throw Error("n and m must be at least 1");
  validate_heads(d_model, heads);
  Cost c;
  const char* projections = "the projection FLOPs 2·d_model²·(n + 2m)";
  c.projection_flops =
      mul(2, mul(mul(d_model, d_model, projections), add(n, mul(2, m, projections), projections), projections),
          projections);
  const char* scores = "the FLOPs of QKᵀ, 2·n·m·d_model";
  c.score_flops = mul(2, mul(mul(n, m, scores), d_model, scores), scores);
  c.value_flops = c.score_flops;
  const char* output = "the output projection's FLOPs 2·n·d_model²";
  c.output_flops = mul(2, mul(n, mul(d_model, d_model, output), output), output);
  const char* bytes = "the attention matrices' bytes 4·h·n·m";
  c.attention_bytes = mul(4, mul(heads, mul(n, m, bytes), bytes), bytes);
  // Each term is at most 2^53 − 1, so the sums cannot wrap.
  c.dominant = c.score_flops + c.value_flops > c.projection_flops + c.output_flops
                   ? Dominant::attention
                   : Dominant::projections;
  return c;
}

}  // namespace attn
