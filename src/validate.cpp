#include "validate.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "error.hpp"
#include "limits.hpp"

namespace attn {

std::string count(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string shape(std::uint64_t rows, std::uint64_t cols) {
  return std::to_string(rows) + "×" + std::to_string(cols);
}

namespace {

// The side of the largest square attention matrix, for the limit's message: kMaxScoreEntries is
// checked here to be a square, so the message's n×n is the limit itself.
constexpr std::size_t kMaxScoreSide = [] {
  std::size_t side = 1;
  while (side * side < limits::kMaxScoreEntries) ++side;
  return side;
}();
static_assert(kMaxScoreSide * kMaxScoreSide == limits::kMaxScoreEntries, "kMaxScoreEntries must be a square");

}  // namespace

std::string position(std::size_t i, std::size_t j) {
  return "row " + std::to_string(i + 1) + " column " + std::to_string(j + 1);
}

void validate_shape(const char* name, std::uint64_t rows, std::uint64_t cols) {
  const std::string who = name;
  if (rows > limits::kMaxRows) {
    throw Error(who + " has " + std::to_string(rows) + " rows, over the limit of " +
                std::to_string(limits::kMaxRows));
  }
  if (cols > limits::kMaxCols) {
    throw Error(who + " has " + std::to_string(cols) + " columns, over the limit of " +
                std::to_string(limits::kMaxCols));
  }
  if (rows == 0 || cols == 0) {
    throw Error(who + " is empty (" + shape(rows, cols) + "): it needs at least one row and one column");
  }
}

void validate_score_shape(std::uint64_t n, std::uint64_t m) {
  if (n == 0 || m == 0) {
    throw Error("Q has " + std::to_string(n) + " rows and K has " + std::to_string(m) + ": the " + shape(n, m) +
                " attention matrix is empty: it needs at least one query and one key");
  }
  // n, m <= kMaxRows (2^16) first, so n·m cannot wrap.
  if (n > limits::kMaxRows || m > limits::kMaxRows || n * m > limits::kMaxScoreEntries) {
    throw Error("Q has " + std::to_string(n) + " rows and K has " + std::to_string(m) + ": the " + shape(n, m) +
                " attention matrix is over the limit of " + std::to_string(limits::kMaxScoreEntries) +
                " entries (" + shape(kMaxScoreSide, kMaxScoreSide) + ")");
  }
}

void validate_bias(const char* name, const float* bias, std::size_t entries, std::size_t size) {
  const std::string who = name;
  if (entries == 0) return;
  if (entries != size) {
    throw Error(who + " has " + count(entries, "entry", "entries") + " but d_model is " +
                std::to_string(size) + ": a bias needs one entry per output column");
  }
  for (std::size_t j = 0; j < entries; ++j) {
    if (!std::isfinite(bias[j])) {
      throw Error(std::string(std::isnan(bias[j]) ? "NaN" : "Infinity") + " at " + who +
                  " entry " + std::to_string(j + 1) + ": inputs must be finite numbers");
    }
  }
}

void validate_range(const char* name, std::uint64_t value, std::uint64_t lo, std::uint64_t hi) {
  if (value >= lo && value <= hi) return;
  std::string message = name;  // appended in place: one string, not a chain of temporaries
  message += " must be a whole number from ";
  message += std::to_string(lo);
  message += " to ";
  message += std::to_string(hi);
  message += " (got ";
  message += std::to_string(value);
  message += ")";
  throw Error(message);
}

std::string number_text(float value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {  // 9 significant digits always read back
    std::snprintf(text, sizeof text, "%.*g", digits, double(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  // printf writes the exponent with a sign and two digits (1e-07, 1e+21); JavaScript as 1e-7, 1e+21.
  std::string out = text;
  const std::size_t e = out.find('e');
  if (e != std::string::npos && out[e + 2] == '0') out.erase(e + 2, 1);
  return out;
}

std::string quoted(std::string_view text) {
  constexpr std::size_t kShown = 20;
  std::size_t cut = text.size();
  if (cut > kShown) {
    cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  }
  std::string out = "\"";  // appended in place: GCC 12 warns (-Wrestrict) about "…" + std::string here
  out.append(text.substr(0, cut));
  if (cut < text.size()) out += "…";
  out += '"';
  return out;
}

void validate_heads(std::uint64_t d_model, std::uint64_t heads) {
  validate_range("heads", heads, 1, limits::kMaxHeads);
  if (d_model % heads != 0) {
    throw Error("d_model " + std::to_string(d_model) + " is not divisible by " +
                std::to_string(heads) + " heads: each head needs d_k = d_model / h columns");
  }
}

}  // namespace attn
