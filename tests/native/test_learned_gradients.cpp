// Issue 13: the learned model's hand-written backward pass against float64 central differences,
// its kernels against their scalar references, its forward against the core's attention(), and
// determinism. Every float32 gradient is compared with the derivative of the same function
// computed in double (reference/model_ref.hpp), by the relative error
// ‖g − g_fd‖ / max(‖g‖, ‖g_fd‖, tiny).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attention.hpp"
#include "kernels/simd.hpp"
#include "learned/head.hpp"
#include "learned/kernels/backward.hpp"
#include "learned/model.hpp"
#include "learned/reference/model_ref.hpp"
#include "learned/trainer.hpp"
#include "learned/vocabulary.hpp"
#include "support/seed.hpp"

using namespace attn::learned;

namespace {

double relative_error(const std::vector<double>& g, const std::vector<double>& ref) {
  double diff = 0, ng = 0, nr = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    diff += (g[i] - ref[i]) * (g[i] - ref[i]);
    ng += g[i] * g[i];
    nr += ref[i] * ref[i];
  }
  return std::sqrt(diff) / std::max({std::sqrt(ng), std::sqrt(nr), 1e-30});
}

// Central difference of f at x[i], in double: (f(x + h) − f(x − h)) / 2h, h relative to |x|.
template <class F>
std::vector<double> central_differences(std::vector<double>& x, F f) {
  std::vector<double> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i], h = 1e-6 * std::max(1.0, std::fabs(keep));
    x[i] = keep + h;
    const double up = f();
    x[i] = keep - h;
    const double down = f();
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

// Float32 values, so the double reference sees exactly the numbers the float32 code sees.
std::vector<float> draw(testsupport::Random& rng, std::size_t n, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// The kernel widths to sweep: around the vector width, as the core's kernel tests do.
std::vector<std::size_t> widths() {
  const std::size_t L = attn::kernels::kLanes;
  std::vector<std::size_t> w{1, 2, 3, L + 1, 2 * L + 3, 3 * L + 2};
  if (L > 1) w.push_back(L - 1), w.push_back(L);
  return w;
}

struct HeadCase {
  std::size_t n, m, dk, dv;
  std::string mask;  // "causal", "random", "fully masked row", "none"
  bool unscaled;
};

std::vector<std::uint8_t> hidden_for(const HeadCase& c, testsupport::Random& rng) {
  std::vector<std::uint8_t> h(c.n * c.m, 0);
  for (std::size_t i = 0; i < c.n; ++i) {
    for (std::size_t j = 0; j < c.m; ++j) {
      if (c.mask == "causal") h[i * c.m + j] = j > i;
      if (c.mask == "random" || c.mask == "fully masked row") h[i * c.m + j] = rng.coin(0.4);
    }
  }
  if (c.mask == "fully masked row") {
    for (std::size_t j = 0; j < c.m; ++j) h[(c.n / 2) * c.m + j] = 1;
  }
  return h;
}

// The head's float32 backward against the central differences of L = Σ G ⊙ O in double.
// Returns the worst relative error of dQ, dK, dV.
double head_gradient_error(const HeadCase& c, testsupport::Random& rng, bool drop_scale_in_dq = false) {
  const std::vector<float> q = draw(rng, c.n * c.dk), k = draw(rng, c.m * c.dk), v = draw(rng, c.m * c.dv),
                           g = draw(rng, c.n * c.dv);
  const std::vector<std::uint8_t> hidden = hidden_for(c, rng);
  const float scale = c.unscaled ? 1.0f : 1.0f / std::sqrt(float(c.dk));
  const HeadShape shape{c.n, c.m, c.dk, c.dv, scale};

  std::vector<float> p(c.n * c.m), o(c.n * c.dv), scratch(c.n * c.m);
  std::vector<float> dq(q.size(), 0.0f), dk(k.size(), 0.0f), dv(v.size(), 0.0f);
  head_forward(shape, q.data(), c.dk, k.data(), c.dk, v.data(), c.dv, hidden.data(), p.data(), o.data(), c.dv);
  head_backward(shape, q.data(), c.dk, k.data(), c.dk, v.data(), c.dv, p.data(), g.data(), c.dv, dq.data(),
                dk.data(), dv.data(), scratch.data());
  if (drop_scale_in_dq) {  // the bug a check must catch: dQ without the factor s
    for (float& x : dq) x /= scale;
  }

  std::vector<double> Q = widen(q), K = widen(k), Vd = widen(v), G = widen(g);
  std::vector<double> P(c.n * c.m), O(c.n * c.dv);
  auto f = [&] {
    reference::head_forward_ref(Q.data(), K.data(), Vd.data(), hidden.data(), c.n, c.m, c.dk, c.dv, double(scale),
                                P.data(), O.data());
    double s = 0.0;
    for (std::size_t i = 0; i < O.size(); ++i) s += G[i] * O[i];
    return s;
  };
  const double eq = relative_error(widen(dq), central_differences(Q, f));
  const double ek = relative_error(widen(dk), central_differences(K, f));
  const double ev = relative_error(widen(dv), central_differences(Vd, f));
  return std::max({eq, ek, ev});
}

// Float32 rounding of sums of a few dozen terms of size ~1: the errors measured are below 3e-7
// (native SSE2); a wrong gradient (the checks' own failure test, or a broken scatter-add) is off
// by 2e-2 or more.
constexpr double kTolerance = 1e-5;

ModelConfig small_model(std::size_t heads, std::size_t d_model, ScaleMode scale) {
  ModelConfig c;
  c.layers = 2;
  c.heads = heads;
  c.d_model = d_model;
  c.context = 7;
  c.scale = scale;
  return c;
}

}  // namespace

TEST_CASE("matmul_atb (Aᵀ·B) matches its double reference over widths with tails") {
  ATTN_SEEDED_RANDOM(rng, 1301);
  for (std::size_t n : {1u, 3u, 9u}) {
    for (std::size_t d : widths()) {
      for (std::size_t p : widths()) {
        CAPTURE(n); CAPTURE(d); CAPTURE(p);
        // Strides one wider than the rows, padded with NaN: a read past a row would show.
        const std::vector<float> a0 = draw(rng, n * (d + 1)), b0 = draw(rng, n * (p + 1));
        std::vector<float> a = a0, b = b0;
        for (std::size_t t = 0; t < n; ++t) a[t * (d + 1) + d] = NAN, b[t * (p + 1) + p] = NAN;
        const std::vector<float> c0 = draw(rng, d * p);
        std::vector<float> c = c0, ref = c0;
        kernels::matmul_atb<true>(a.data(), d + 1, b.data(), p + 1, c.data(), p, n, d, p);
        reference::matmul_atb_ref(a.data(), d + 1, b.data(), p + 1, ref.data(), p, n, d, p, true);
        for (std::size_t i = 0; i < c.size(); ++i) REQUIRE(std::fabs(c[i] - ref[i]) <= 1e-5f * (1.0f + float(n)));
        kernels::matmul_atb<false>(a.data(), d + 1, b.data(), p + 1, c.data(), p, n, d, p);
        reference::matmul_atb_ref(a.data(), d + 1, b.data(), p + 1, ref.data(), p, n, d, p, false);
        for (std::size_t i = 0; i < c.size(); ++i) REQUIRE(std::fabs(c[i] - ref[i]) <= 1e-5f * (1.0f + float(n)));
      }
    }
  }
}

TEST_CASE("softmax_backward_row and adamw match their references over widths with tails") {
  ATTN_SEEDED_RANDOM(rng, 1302);
  for (std::size_t m : widths()) {
    CAPTURE(m);
    std::vector<float> p = draw(rng, m, 0.0f, 1.0f), dp = draw(rng, m);
    p[0] = 0.0f;  // a hidden key: its gradient must be exactly 0
    std::vector<float> ds(m), ref(m);
    kernels::softmax_backward_row(p.data(), dp.data(), ds.data(), m, 0.5f);
    reference::softmax_backward_row_ref(p.data(), dp.data(), ref.data(), m, 0.5f);
    CHECK(ds[0] == 0.0f);
    for (std::size_t j = 0; j < m; ++j) REQUIRE(std::fabs(ds[j] - ref[j]) <= 1e-6f * (1.0f + float(m)));

    std::vector<float> w = draw(rng, m), g = draw(rng, m), mo = draw(rng, m, 0.0f, 0.1f),
                       vo = draw(rng, m, 0.0f, 0.1f);
    std::vector<float> w2 = w, m2 = mo, v2 = vo;
    const kernels::AdamWStep s{1e-2f, 0.9f, 0.98f, 1e-8f, 0.01f, 0.19f, 0.0396f};
    kernels::adamw(w.data(), g.data(), mo.data(), vo.data(), m, s);
    reference::adamw_ref(w2.data(), g.data(), m2.data(), v2.data(), m, s);
    for (std::size_t j = 0; j < m; ++j) {
      REQUIRE(std::fabs(w[j] - w2[j]) <= 1e-6f);
      REQUIRE(std::fabs(mo[j] - m2[j]) <= 1e-7f);
      REQUIRE(std::fabs(vo[j] - v2[j]) <= 1e-7f);
    }
  }
}

TEST_CASE("the training head's forward is the core's attention()") {
  ATTN_SEEDED_RANDOM(rng, 1303);
  for (std::size_t n : {1u, 5u, 33u}) {
    for (std::size_t dk : {3u, 8u, 17u}) {
      CAPTURE(n); CAPTURE(dk);
      const attn::Matrix q = rng.matrix(n, dk), k = rng.matrix(n, dk), v = rng.matrix(n, dk + 2);
      attn::AttentionOptions opt;
      opt.mask = attn::Mask::causal();
      const auto core = attn::attention(q, k, v, opt);
      const HeadCase c{n, n, dk, dk + 2, "causal", false};
      const std::vector<std::uint8_t> hidden = hidden_for(c, rng);
      std::vector<float> p(n * n), o(n * (dk + 2));
      head_forward({n, n, dk, dk + 2, core.scale}, q.data.data(), dk, k.data.data(), dk, v.data.data(), dk + 2,
                   hidden.data(), p.data(), o.data(), dk + 2);
      for (std::size_t i = 0; i < p.size(); ++i) REQUIRE(std::fabs(p[i] - core.weights.data[i]) <= 2e-6f);
      for (std::size_t i = 0; i < o.size(); ++i) REQUIRE(std::fabs(o[i] - core.output.data[i]) <= 4e-6f);
    }
  }
}

TEST_CASE("head backward (dQ, dK, dV through the softmax) equals float64 central differences") {
  ATTN_SEEDED_RANDOM(rng, 1304);
  std::vector<HeadCase> cases;
  for (std::size_t dk : widths()) {
    cases.push_back({5, 5, dk, dk + 1, "causal", false});
    cases.push_back({4, 7, dk, 3, "random", false});
  }
  cases.push_back({6, 6, 5, 4, "fully masked row", false});
  cases.push_back({6, 9, 3, 5, "fully masked row", true});
  cases.push_back({9, 9, 7, 7, "causal", true});  // the "no scale" pitfall
  cases.push_back({1, 1, 1, 1, "none", false});
  cases.push_back({3, 8, 2, 6, "none", false});
  for (const HeadCase& c : cases) {
    CAPTURE(c.n); CAPTURE(c.m); CAPTURE(c.dk); CAPTURE(c.dv); CAPTURE(c.mask); CAPTURE(c.unscaled);
    CHECK(head_gradient_error(c, rng) < kTolerance);
  }
}

TEST_CASE("a fully masked row has zero gradient and a zero output") {
  ATTN_SEEDED_RANDOM(rng, 1305);
  const HeadCase c{4, 4, 3, 3, "fully masked row", false};
  const std::vector<std::uint8_t> hidden = hidden_for(c, rng);
  const std::vector<float> q = draw(rng, 12), k = draw(rng, 12), v = draw(rng, 12), g = draw(rng, 12);
  std::vector<float> p(16), o(12), scratch(16), dq(12, 0.0f), dk(12, 0.0f), dv(12, 0.0f);
  const HeadShape s{4, 4, 3, 3, 0.5f};
  head_forward(s, q.data(), 3, k.data(), 3, v.data(), 3, hidden.data(), p.data(), o.data(), 3);
  head_backward(s, q.data(), 3, k.data(), 3, v.data(), 3, p.data(), g.data(), 3, dq.data(), dk.data(), dv.data(),
                scratch.data());
  const std::size_t row = 2;  // n / 2
  for (std::size_t t = 0; t < 3; ++t) {
    CHECK(o[row * 3 + t] == 0.0f);
    CHECK(dq[row * 3 + t] == 0.0f);
  }
}

TEST_CASE("the gradient check catches a wrong gradient (dQ without the scale)") {
  ATTN_SEEDED_RANDOM(rng, 1306);
  CHECK(head_gradient_error({5, 5, 4, 4, "causal", false}, rng, true) > 0.1);
}

TEST_CASE("whole-model backward equals float64 central differences, block by block") {
  ATTN_SEEDED_RANDOM(rng, 1307);
  struct ModelCase {
    ModelConfig config;
    std::size_t batch;
  };
  // d_head 3 and 5: tails of every vector width; one unscaled model.
  const std::vector<ModelCase> cases{{small_model(2, 6, ScaleMode::sqrt_d_k), 2},
                                     {small_model(1, 5, ScaleMode::sqrt_d_k), 1},
                                     {small_model(2, 10, ScaleMode::none), 2}};
  for (const ModelCase& mc : cases) {
    const ModelConfig& c = mc.config;
    const bool unscaled = c.scale == ScaleMode::none;
    CAPTURE(c.heads); CAPTURE(c.d_model); CAPTURE(unscaled);
    const Layout lay(c);
    const std::size_t n = c.context, B = mc.batch;
    std::vector<float> w = draw(rng, lay.total, -0.6f, 0.6f);
    std::vector<int> tokens(B * n);
    for (std::size_t r = 0; r < tokens.size(); ++r) tokens[r] = r % n == 0 ? kBos : int(rng.index(27));
    std::vector<int> targets = next_token_targets(tokens.data(), B, n);
    targets[1] = -1;  // a position that predicts nothing

    Activations a;
    std::vector<float> probs, grads(lay.total, 0.0f);
    forward(c, w.data(), tokens.data(), B, n, a);
    const double l32 = loss(a, targets.data(), nullptr, probs);
    backward(c, w.data(), tokens.data(), targets.data(), a, probs, grads.data());

    std::vector<double> wd = widen(w);
    const double l64 = reference::model_loss_ref(c, wd.data(), tokens.data(), targets.data(), B, n);
    CHECK(std::fabs(l32 - l64) < 1e-5 * (1.0 + l64));
    const std::vector<double> fd = central_differences(
        wd, [&] { return reference::model_loss_ref(c, wd.data(), tokens.data(), targets.data(), B, n); });

    struct Block {
      std::string name;
      std::size_t begin, size;
    };
    const std::size_t d = c.d_model, V = std::size_t(kVocabulary);
    std::vector<Block> blocks{{"token embedding", lay.embed, V * d}, {"position embedding", lay.position, n * d}};
    for (std::size_t l = 0; l < c.layers; ++l) {
      blocks.push_back({"W_QKV of layer " + std::to_string(l + 1), lay.qkv[l], 3 * d * d});
      blocks.push_back({"W_O of layer " + std::to_string(l + 1), lay.out[l], d * d});
    }
    blocks.push_back({"unembedding", lay.unembed, d * V});
    for (const Block& b : blocks) {
      CAPTURE(b.name);
      const std::vector<double> g(grads.begin() + std::ptrdiff_t(b.begin), grads.begin() + std::ptrdiff_t(b.begin + b.size));
      const std::vector<double> r(fd.begin() + std::ptrdiff_t(b.begin), fd.begin() + std::ptrdiff_t(b.begin + b.size));
      CHECK(relative_error(g, r) < kTolerance);
    }
  }
}

namespace {

std::uint64_t fnv1a(const std::vector<float>& v) {
  std::uint64_t h = 1469598103934665603ULL;
  for (float f : v) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    for (int i = 0; i < 4; ++i) h = (h ^ ((bits >> (8 * i)) & 0xff)) * 1099511628211ULL;
  }
  return h;
}

TrainerOptions tiny_trainer(std::uint64_t seed) {
  TrainerOptions o;
  o.model = small_model(2, 8, ScaleMode::sqrt_d_k);
  o.model.context = 9;
  o.seed = seed;
  o.batch = 4;
  o.warmup = 2;
  return o;
}

}  // namespace

TEST_CASE("determinism: two training runs from one seed give one hash") {
  auto run = [](std::uint64_t seed) {
    Trainer t(tiny_trainer(seed));
    t.step(25);
    return fnv1a(t.parameters());
  };
  const std::uint64_t first = run(7), second = run(7);
  MESSAGE("weights hash after 25 steps: " << first);
  CHECK(first == second);
  CHECK(run(8) != first);  // the hash does see the weights
}

TEST_CASE("a diverged training run says so and never shows its non-finite weights") {
  TrainerOptions o = tiny_trainer(1);
  o.init_sigma = 1e19f;  // embeddings whose scores overflow float32 at once
  Trainer t(o);
  const char* message =
      "training diverged at step 1: the loss or a weight is no longer a finite number; a smaller learningRate trains stably";
  CHECK_THROWS_WITH(t.step(3), message);
  CHECK_THROWS_WITH(t.step(), message);
  CHECK_THROWS_WITH(t.parameters(), message);
}

TEST_CASE("the vocabulary and the options refuse bad input in the user's terms") {
  CHECK(encode("ab c", 33) == std::vector<int>{kBos, 0, 1, 26, 2});
  CHECK_THROWS_WITH(encode("abC", 33),
                    "character 3 is \"C\", which the model does not know: it reads only the letters a to z and the space");
  CHECK_THROWS_WITH(encode("abcdefgh", 8),
                    "the text has 8 characters, but the model reads at most 7 (its context is 8 tokens, one of them BOS)");
  TrainerOptions o = tiny_trainer(1);
  o.model.heads = 3;
  CHECK_THROWS_WITH(Trainer{o}, "dModel (8) must be a multiple of heads (3): each head gets dModel / heads dimensions");
  o = tiny_trainer(1);
  o.learning_rate = 0.0f;
  CHECK_THROWS_WITH(Trainer{o}, "learningRate must be a number greater than 0 and at most 1 (got 0)");
  o = tiny_trainer(1);
  o.model.context = 56;
  o.task.distinct_share = 0.5;
  CHECK_THROWS_WITH(Trainer{o}, "context must be a whole number from 7 to 55 (got 56)");
  o.model.context = 55;  // the longest that fits: distinct-letter sequences from the first step
  Trainer longest(o);
  CHECK(longest.step(2).step == 2);
}
