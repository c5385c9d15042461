#include "construct.hpp"

#include <string>

#include "error.hpp"
#include "validate.hpp"

namespace attn {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

// ASCII letters only, the same under any locale; other bytes (UTF-8) stay as they are.
std::string lower(std::string word) {
  for (char& c : word) {
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return word;
}

}  // namespace

HeadKind head_kind_from_string(std::string_view kind) {
  if (kind == "previous-token") return HeadKind::previous_token;
  if (kind == "first-token") return HeadKind::first_token;
  if (kind == "same-token") return HeadKind::same_token;
  throw Error("kind must be 'previous-token', 'first-token' or 'same-token' (got " + quoted(kind) + ")");
}

const char* to_string(HeadKind kind) {
  switch (kind) {
    case HeadKind::previous_token: return "previous-token";
    case HeadKind::first_token: return "first-token";
    case HeadKind::same_token: return "same-token";
  }
  return "?";
}

ConstructedHead constructed_head(HeadKind kind, std::string_view sentence) {
  ConstructedHead h;
  h.tokens = split_words(sentence);
  const std::size_t n = h.tokens.size();
  if (n == 0) throw Error("the sentence has no words: type a few, separated by spaces");
  if (n > limits::kMaxConstructTokens) {
    throw Error("the sentence has " + std::to_string(n) + " words, over the limit of " +
                std::to_string(limits::kMaxConstructTokens) + " for this lab");
  }

  // Token identities: the lower-cased text, numbered in order of first appearance.
  std::vector<std::string> vocab;
  std::vector<std::size_t> id(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string word = lower(h.tokens[i]);
    std::size_t v = 0;
    while (v < vocab.size() && vocab[v] != word) ++v;
    if (v == vocab.size()) vocab.push_back(word);
    id[i] = v;
  }
  const std::size_t d = n + vocab.size();
  for (std::size_t i = 0; i < n; ++i) h.features.push_back("pos " + std::to_string(i + 1));
  for (const std::string& word : vocab) h.features.push_back(word);

  h.x = Matrix(n, d);
  for (std::size_t i = 0; i < n; ++i) {
    h.x(i, i) = 1.0f;          // position i
    h.x(i, n + id[i]) = 1.0f;  // token identity
  }

  // Rows of W index input features, columns the q/k coordinates; x_i·W is the sum of the rows
  // of W at token i's two features. Each preset routes a position or identity to a coordinate.
  const float s = kConstructStrength;
  h.wq = Matrix(d, d);
  h.wk = Matrix(d, d);
  h.expected.resize(n);
  switch (kind) {
    case HeadKind::previous_token:
      // q_i = s·e_i, k_j = s·e_{j+1}: q_i·k_j = s² exactly when j = i − 1. Token 1 has no
      // previous token; under the causal mask it sees only itself.
      for (std::size_t i = 0; i < n; ++i) h.wq(i, i) = s;
      for (std::size_t j = 0; j + 1 < n; ++j) h.wk(j, j + 1) = s;
      for (std::size_t i = 0; i < n; ++i) h.expected[i] = {i == 0 ? 0 : i - 1};
      break;
    case HeadKind::first_token:
      // Every position sends q to the same coordinate (e_1); only position 1 has a key there.
      for (std::size_t i = 0; i < n; ++i) h.wq(i, 0) = s;
      h.wk(0, 0) = s;
      for (std::size_t i = 0; i < n; ++i) h.expected[i] = {0};
      break;
    case HeadKind::same_token:
      // q_i = k_i = s·e_{n + id(i)}: q_i·k_j = s² exactly when tokens i and j are the same word.
      for (std::size_t v = 0; v < vocab.size(); ++v) h.wq(n + v, n + v) = h.wk(n + v, n + v) = s;
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
          if (id[j] == id[i]) h.expected[i].push_back(j);
        }
      }
      break;
  }
  return h;
}

}  // namespace attn
