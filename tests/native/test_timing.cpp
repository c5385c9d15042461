// Timing the explaining path and the streaming kernel: each runs and returns a positive, finite
// time. Speed is never asserted (the machine may be busy).
#include <doctest/doctest.h>

#include <cmath>

#include "error.hpp"
#include "kernels/streaming_attention.hpp"
#include "timing.hpp"

namespace {

// One timing of `path` at n tokens, d = 8, checked to be a positive, finite time.
attn::TimingResult timed(std::size_t n, attn::TimedPath path) {
  CAPTURE(n);
  attn::TimingOptions o;
  o.n = n;
  o.d = 8;
  o.repeats = 2;
  o.path = path;
  const attn::TimingResult r = attn::time_attention(o);
  CHECK(std::isfinite(r.seconds));
  CHECK(r.seconds > 0.0);
  CHECK(r.iterations >= 1);
  return r;
}

}  // namespace

TEST_CASE("time_attention runs and returns a positive finite time") {
  for (std::size_t n : {1u, 16u, 100u}) {
    CHECK(timed(n, attn::TimedPath::explaining).attention_bytes == 4.0 * double(n) * double(n));
  }
  attn::TimingOptions bad;
  bad.n = 2049;
  CHECK_THROWS_WITH_AS(attn::time_attention(bad), "n must be a whole number from 1 to 2048 (got 2049)",
                       attn::Error);
  bad.n = 4;
  bad.repeats = 0;
  CHECK_THROWS_AS(attn::time_attention(bad), attn::Error);
}

TEST_CASE("time_attention times the streaming kernel, whose scores are one tile at any n") {
  for (std::size_t n : {1u, 65u, 300u}) {
    CHECK(timed(n, attn::TimedPath::streaming).attention_bytes == 4.0 * double(attn::kBlockRows * attn::kBlockKeys));
  }
  CHECK(attn::timed_path_from_string("streaming") == attn::TimedPath::streaming);
  CHECK(attn::timed_path_from_string("explaining") == attn::TimedPath::explaining);
  CHECK_THROWS_WITH_AS(attn::timed_path_from_string("flash"), "path must be 'explaining' or 'streaming' (got \"flash\")",
                       attn::Error);
}
