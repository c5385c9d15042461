// The core against PyTorch (tests/fixtures/*.json, written by tools/make_fixtures.py), with the
// tolerances stored in those files.
#include <doctest/doctest.h>

#include <string>

#include "attention.hpp"
#include "multihead.hpp"
#include "support/compare.hpp"
#include "support/fixtures.hpp"

using namespace testsupport;

TEST_CASE("PyTorch fixtures: single-head attention") {
  const Json doc = read_json_file(fixture_path("attention.json"));
  const Tolerance tol = tolerance_from_json(doc);
  REQUIRE(doc["cases"].size() >= 15);
  for (const Json& c : doc["cases"].array) {
    const std::string& name = c["name"].as_string();
    CAPTURE(name);
    const attn::Matrix q = matrix_from_json(c["q"]), k = matrix_from_json(c["k"]),
                       v = matrix_from_json(c["v"]);
    attn::AttentionOptions o;
    o.mask = mask_from_json(c["mask"]);
    if (!c["scale"].is_null()) o.pitfalls.scale = float(c["scale"].as_number());
    o.pitfalls.mask_after_softmax = c["mask_after_softmax"].as_bool();
    const auto r = attn::attention(q, k, v, o);
    const Json& e = c["expected"];
    const std::size_t n = q.rows, m = k.rows;
    CHECK(close(r.scale, e["scale"].as_number(), {0.0, 1e-7}));
    CHECK(compare_matrix(r.scores.data, flat_rows(e["scores"]), n, m, tol, "scores") == "");
    CHECK(compare_matrix(r.scaled.data, flat_rows(e["masked"]), n, m, tol, "masked") == "");
    CHECK(compare_matrix(r.weights.data, flat_rows(e["weights"]), n, m, tol, "weights") == "");
    CHECK(compare_matrix(r.output.data, flat_rows(e["output"]), n, v.cols, tol, "output") == "");
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(bool(r.fully_masked[i]) == e["fully_masked"][i].as_bool());
    }
  }
}

TEST_CASE("PyTorch fixtures: nn.MultiheadAttention") {
  const Json doc = read_json_file(fixture_path("multihead.json"));
  const Tolerance tol = tolerance_from_json(doc);
  REQUIRE(doc["cases"].size() >= 6);
  for (const Json& c : doc["cases"].array) {
    const std::string& name = c["name"].as_string();
    CAPTURE(name);
    const attn::Matrix x = matrix_from_json(c["x"]);
    attn::MultiHeadParams p;
    p.wq = matrix_from_json(c["wq"]);
    p.wk = matrix_from_json(c["wk"]);
    p.wv = matrix_from_json(c["wv"]);
    p.wo = matrix_from_json(c["wo"]);
    if (c["bias"].as_bool()) {
      p.bq = vector_from_json(c["bq"]);
      p.bk = vector_from_json(c["bk"]);
      p.bv = vector_from_json(c["bv"]);
      p.bo = vector_from_json(c["bo"]);
    }
    p.heads = std::size_t(c["heads"].as_number());
    const auto r = attn::multi_head_attention(x, p, mask_from_json(c["mask"]));
    const Json& e = c["expected"];
    const std::size_t n = x.rows, d = x.cols;
    CHECK(compare_matrix(r.q.data, flat_rows(e["q"]), n, d, tol, "Q") == "");
    CHECK(compare_matrix(r.k.data, flat_rows(e["k"]), n, d, tol, "K") == "");
    CHECK(compare_matrix(r.v.data, flat_rows(e["v"]), n, d, tol, "V") == "");
    REQUIRE(r.heads.size() == p.heads);
    for (std::size_t h = 0; h < p.heads; ++h) {
      CAPTURE(h);
      CHECK(compare_matrix(r.heads[h].weights.data, flat_rows(e["head_weights"][h]), n, n, tol,
                           "head weights") == "");
      CHECK(compare_matrix(r.heads[h].output.data, flat_rows(e["head_outputs"][h]), n,
                           d / p.heads, tol, "head output") == "");
    }
    CHECK(compare_matrix(r.concat.data, flat_rows(e["concat"]), n, d, tol, "concat") == "");
    CHECK(compare_matrix(r.output.data, flat_rows(e["output"]), n, d, tol, "output") == "");
  }
}
