// Parameter count and cost model, against the lesson's figures.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

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
                    "the projection FLOPs 2·d_model²·(n + 2m) is over 2^53 − 1 = 9007199254740991, "
                    "the largest whole number a double holds exactly; use smaller sizes");
}

TEST_CASE("counts over 2^53 − 1, not exact in a double, are refused") {
  // 4·(2^27 + 1)² + 4·(2^27 + 1) = 72057595648540680, which a double would round to …672.
  const std::uint64_t d = (1ull << 27) + 1;
  CHECK_THROWS_WITH_AS(attn::parameter_count(d, 1, true),
                       "the parameter count 4·d_model² + 4·d_model is over 2^53 − 1 = 9007199254740991, "
                       "the largest whole number a double holds exactly; use smaller sizes",
                       attn::Error);
  // The largest d_model whose count is exact: 4d² + 4d <= 2^53 − 1 up to d = 47453132.
  CHECK(attn::parameter_count(47453132, 4, true) == 4ull * 47453132 * 47453132 + 4ull * 47453132);
  CHECK_THROWS_AS(attn::parameter_count(47453133, 1, true), attn::Error);
  // n + 2m wrapped around 64 bits before: 2^63 + 2·2^62 = 2^64 = 0.
  CHECK_THROWS_AS(attn::cost(1ull << 63, 1ull << 62, 1, 1), attn::Error);
  CHECK_THROWS_AS(attn::crossover_n(1ull << 53), attn::Error);
  CHECK(attn::crossover_n((1ull << 52) - 1) == (1ull << 53) - 2);
  // Every field of a cost just under the limit is exact; one more token and a field is over.
  const attn::Cost c = attn::cost(1, 1, 1, 1);
  CHECK(c.attention_bytes == 4u);
  CHECK_THROWS_WITH(attn::cost(1ull << 30, 1ull << 30, 1ull << 20, 1),
                    "the projection FLOPs 2·d_model²·(n + 2m) is over 2^53 − 1 = 9007199254740991, "
                    "the largest whole number a double holds exactly; use smaller sizes");
  CHECK_THROWS_WITH(attn::cost(1ull << 26, 1ull << 26, 1, 1),
                    "the FLOPs of QKᵀ, 2·n·m·d_model is over 2^53 − 1 = 9007199254740991, "
                    "the largest whole number a double holds exactly; use smaller sizes");
}

TEST_CASE("crossover: the attention products overtake the projections past n = 2·d_model") {
  CHECK(attn::crossover_n(768) == 1536u);
  CHECK(attn::crossover_n(1) == 2u);
  CHECK_THROWS_AS(attn::crossover_n(0), attn::Error);
  for (std::uint64_t d : {1u, 2u, 3u, 8u, 64u, 768u, 4096u}) {
    for (std::uint64_t h : {1u, 2u}) {
      if (d % h) continue;
      CAPTURE(d); CAPTURE(h);
      const std::uint64_t x = attn::crossover_n(d);
      const auto attention = [&](const attn::Cost& c) { return c.score_flops + c.value_flops; };
      const auto projections = [&](const attn::Cost& c) { return c.projection_flops + c.output_flops; };
      const auto at = attn::cost(x, x, d, h), below = attn::cost(x - 1, x - 1, d, h),
                 above = attn::cost(x + 1, x + 1, d, h);
      CHECK(attention(at) == projections(at));  // 4n²d = 8nd² exactly at n = 2d
      CHECK(at.dominant == attn::Dominant::projections);  // a tie counts as projections
      CHECK(attention(below) < projections(below));
      CHECK(below.dominant == attn::Dominant::projections);
      CHECK(attention(above) > projections(above));
      CHECK(above.dominant == attn::Dominant::attention);
    }
  }
  CHECK(std::string(attn::to_string(attn::Dominant::attention)) == "attention");
  CHECK(std::string(attn::to_string(attn::Dominant::projections)) == "projections");
  // Cross-attention compares the same sums. 10,000 queries over 100 keys, d = 64: the attention
  // products 4·10⁴·100·64 = 2.56e8 against projections 2·64²·(10⁴ + 200) + 2·10⁴·64² = 1.65e8.
  CHECK(attn::cost(10000, 100, 64, 1).dominant == attn::Dominant::attention);
  // One query over 10,000 keys: the K and V projections of the keys dominate.
  CHECK(attn::cost(1, 10000, 64, 1).dominant == attn::Dominant::projections);
}

TEST_CASE("cost formulas for small sizes, by hand") {
  // n = m = 2, d = 4, h = 2: projections 2·16·6 = 192, scores and A·V 2·4·4 = 32 each,
  // W_O 2·2·16 = 64, bytes 4·2·4 = 32.
  const auto c = attn::cost(2, 2, 4, 2);
  CHECK(c.projection_flops == 192u);
  CHECK(c.score_flops == 32u);
  CHECK(c.value_flops == 32u);
  CHECK(c.output_flops == 64u);
  CHECK(c.attention_bytes == 32u);
  CHECK(c.dominant == attn::Dominant::projections);
  const auto one = attn::cost(1, 1, 1, 1);
  CHECK(one.projection_flops == 6u);
  CHECK(one.score_flops == 2u);
  CHECK(one.output_flops == 2u);
  CHECK(one.attention_bytes == 4u);
}
