// Parameter count and cost model, against the lesson's figures.
#include <doctest/doctest.h>

#include "cost.hpp"
#include "error.hpp"

TEST_CASE("parameter count: 4d² without biases, 4d² + 4d with them, whatever h") {
  CHECK(attn::parameter_count(768, 12, false) == 2359296u);  // GPT-2 small
  CHECK(attn::parameter_count(768, 12, true) == 2362368u);
  CHECK(attn::parameter_count(768, 1, false) == 2359296u);  // heads share the d budget
  CHECK(attn::parameter_count(4, 2, false) == 64u);
  CHECK(attn::parameter_count(4, 2, true) == 80u);
  CHECK_THROWS_WITH_AS(attn::parameter_count(10, 3, false),
                       "d_model 10 is not divisible by 3 heads: each head needs d_k = d_model / h columns",
                       attn::Error);
}

TEST_CASE("cost model: FLOPs of each product and bytes of the attention matrices") {
  // GPT-2 small at a 1024-token context, self-attention.
  const auto c = attn::cost(1024, 1024, 768, 12);
  CHECK(c.projection_flops == 2ull * 768 * 768 * (1024 + 2 * 1024));
  CHECK(c.score_flops == 2ull * 1024 * 1024 * 768);
  CHECK(c.value_flops == c.score_flops);
  CHECK(c.output_flops == 2ull * 1024 * 768 * 768);
  CHECK(c.attention_bytes == 4ull * 12 * 1024 * 1024);  // 48 MiB
  // Doubling the context quadruples the attention terms and doubles the projections.
  const auto c2 = attn::cost(2048, 2048, 768, 12);
  CHECK(c2.score_flops == 4 * c.score_flops);
  CHECK(c2.attention_bytes == 4 * c.attention_bytes);
  CHECK(c2.projection_flops == 2 * c.projection_flops);
  // Cross-attention: the K and V projections run over the m keys.
  CHECK(attn::cost(3, 5, 4, 2).projection_flops == 2ull * 16 * (3 + 2 * 5));
  CHECK_THROWS_AS(attn::cost(0, 1, 4, 1), attn::Error);
  CHECK_THROWS_WITH(attn::cost(1ull << 40, 1ull << 40, 4096, 1),
                    "cost does not fit in 64 bits; use smaller sizes");
}
