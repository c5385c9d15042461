#include "kv_cache.hpp"

#include <algorithm>
#include <string>

#include "error.hpp"
#include "kernels/float_checks.hpp"
#include "limits.hpp"
#include "validate.hpp"

namespace attn {

namespace {

MatrixView row_view(const std::vector<float>& x) { return {x.data(), 1, x.size(), x.size()}; }

void validate_vector(const char* name, const std::vector<float>& x, std::size_t length, const char* what) {
  if (x.size() != length) {
    throw Error(std::string(name) + " has " + count(x.size(), "entry", "entries") + " but must have " +
                std::to_string(length) + ", " + what);
  }
  validate_matrix(name, row_view(x));
}

// The cache with one row appended.
Matrix appended(const MatrixView& cache, const std::vector<float>& row) {
  Matrix out(cache.rows + 1, row.size());
  for (std::size_t i = 0; i < cache.rows; ++i) std::copy(cache.row(i), cache.row(i) + cache.cols, out.row(i));
  std::copy(row.begin(), row.end(), out.row(cache.rows));
  return out;
}

}  // namespace

DecodeStepResult decode_step(const MatrixView& k, const MatrixView& v, const std::vector<float>& q,
                             const std::vector<float>& k_new, const std::vector<float>& v_new) {
  if (k.rows != v.rows) {
    throw Error("the cache's K has " + count(k.rows, "row", "rows") + " and its V " + count(v.rows, "row", "rows") +
                ": each cached token has one row in each");
  }
  const std::size_t m = k.rows;
  if (q.empty()) throw Error("q is empty: the new token's query needs d_k ≥ 1 entries");
  const std::size_t d_k = q.size();
  validate_matrix("q", row_view(q));
  if (m != 0) {
    validate_matrix("K (the cache)", k);
    validate_matrix("V (the cache)", v);
    if (k.cols != d_k) {
      throw Error("q has " + count(d_k, "entry", "entries") + " but the cached keys have " +
                  count(k.cols, "column", "columns") + ": a query and a key must have the same d_k");
    }
  }
  validate_vector("k_new", k_new, d_k, "d_k, as q");
  if (v_new.empty()) throw Error("v_new is empty: the new token's value needs d_v ≥ 1 entries");
  if (m != 0) validate_vector("v_new", v_new, v.cols, "d_v, as the cached values");
  else validate_matrix("v_new", row_view(v_new));
  validate_range("the cache's rows", m + 1, 1, limits::kMaxRows);

  DecodeStepResult r;
  r.k = appended(k, k_new);
  r.v = appended(v, v_new);
  // One query row against every key: nothing is hidden, since the new token is the last.
  const AttentionResult a = attention(row_view(q), r.k, r.v);
  r.scale = a.scale;
  r.scores = a.scores.data;
  r.weights = a.weights.data;
  r.output = a.output.data;
  return r;
}

GroupedResult grouped_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                                std::uint64_t heads, std::uint64_t kv_heads, bool causal) {
  validate_matrix("Q", q);
  validate_heads(q.cols, heads);
  validate_range("K/V heads", kv_heads, 1, heads);
  if (heads % kv_heads != 0) {
    throw Error(count(kv_heads, "K/V head does", "K/V heads do") + " not divide " + count(heads, "query head", "query heads") +
                ": each K/V head serves h / h_kv query heads, a whole number");
  }
  const std::size_t h = std::size_t(heads), g = std::size_t(kv_heads), d = q.cols, d_k = d / h, d_kv = g * d_k;
  validate_matrix("K", k);
  validate_matrix("V", v);
  for (const auto& [name, m] : {std::pair{"K", k}, std::pair{"V", v}}) {
    if (m.rows != q.rows || m.cols != d_kv) {
      throw Error(std::string(name) + " is " + shape(m.rows, m.cols) + " but must be n×(d·h_kv/h) = " + shape(q.rows, d_kv) +
                  ": " + count(g, "K/V head", "K/V heads") + " of d_k = " + std::to_string(d_k) + " columns each, one row a token");
    }
  }
  if (heads * q.rows * q.rows > limits::kMaxScoreEntries) {
    throw Error(count(heads, "head", "heads") + " over " + count(q.rows, "token", "tokens") +
                " need more attention weights than the limit of " + std::to_string(limits::kMaxScoreEntries));
  }

  GroupedResult r;
  AttentionOptions options;
  if (causal) options.mask = Mask::causal();
  r.output = Matrix(q.rows, d);
  r.heads.reserve(h);
  const std::size_t per_group = h / g;
  for (std::size_t i = 0; i < h; ++i) {
    const std::size_t kv = i / per_group;
    const MatrixView qi{q.data + i * d_k, q.rows, d_k, q.stride};
    const MatrixView ki{k.data + kv * d_k, k.rows, d_k, k.stride};
    const MatrixView vi{v.data + kv * d_k, v.rows, d_k, v.stride};
    GroupedHead head{attention(qi, ki, vi, options), kv};
    for (std::size_t t = 0; t < q.rows; ++t) {
      std::copy(head.attention.output.row(t), head.attention.output.row(t) + d_k, r.output.row(t) + i * d_k);
    }
    r.heads.push_back(std::move(head));
  }
  r.parameters = 2 * std::uint64_t(d) * d + 2 * std::uint64_t(d) * d_kv;
  r.cache_bytes_per_token = 2 * std::uint64_t(d_kv) * sizeof(float);
  return r;
}

std::uint64_t kv_cache_bytes(std::uint64_t layers, std::uint64_t kv_heads, std::uint64_t d_head, std::uint64_t tokens,
                             std::uint64_t bytes_per_value) {
  validate_range("layers", layers, 1, 10000);
  validate_range("K/V heads", kv_heads, 1, 10000);
  validate_range("d_head", d_head, 1, 100000);
  validate_range("tokens", tokens, 0, limits::kMaxExactCount);
  validate_range("bytes per value", bytes_per_value, 1, 8);
  // Every factor but tokens is below 2^14·2^14·2^17·2^4·2 = 2^50, so one division checks the product.
  const std::uint64_t per_token = 2 * layers * kv_heads * d_head * bytes_per_value;
  if (tokens > limits::kMaxExactCount / per_token) {
    throw Error("the cache of " + std::to_string(tokens) + " tokens is more than 2^53 − 1 bytes, past what a number holds exactly");
  }
  return per_token * tokens;
}

}  // namespace attn
