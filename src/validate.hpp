#pragma once
// Input checks shared by the attention entry points. Each throws attn::Error with a message
// that names the matrix, its sizes and the rule it breaks. Rows and columns are 1-based in
// messages, as a learner counts them. These sit below the kernels and include none: the checks
// that scan floats with a kernel (finite inputs, the float32 range rule) are
// kernels/float_checks.hpp's.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "matrix.hpp"

namespace attn {

// "1 row", "3 rows": a count with its noun, for messages.
std::string count(std::uint64_t n, const char* one, const char* many);

// "3×2": how messages write a shape.
std::string shape(std::uint64_t rows, std::uint64_t cols);

// "row 2 column 1": how messages name an entry given at 0-based (i, j).
std::string position(std::size_t i, std::size_t j);

// A matrix's size alone: within limits::kMaxRows and kMaxCols, then not empty. 64-bit, so a
// size from JS that a 32-bit size_t would wrap (2³² + 3 rows) is reported as given.
void validate_shape(const char* name, std::uint64_t rows, std::uint64_t cols);

// n queries and m keys, at least one of each, fit one n×m matrix of the explaining path
// (limits::kMaxScoreEntries).
void validate_score_shape(std::uint64_t n, std::uint64_t m);

// A bias vector: empty (no bias) or exactly `size` finite entries.
void validate_bias(const char* name, const float* bias, std::size_t entries, std::size_t size);

// lo <= value <= hi, else "<name> must be a whole number from <lo> to <hi> (got <value>)". 64-bit,
// so a binding can check a value from JS before it narrows to a 32-bit size_t.
void validate_range(const char* name, std::uint64_t value, std::uint64_t lo, std::uint64_t hi);

// How messages show a number the caller gave, as JavaScript writes it: the shortest text that
// reads back as the same float (0.005, 2, 1e-7), NaN, Infinity.
std::string number_text(float value);

// How messages show a string the caller gave: in double quotes, cut after 20 characters.
std::string quoted(std::string_view text);

// heads in 1..limits::kMaxHeads (validate_range's message), and d_model divisible by heads.
void validate_heads(std::uint64_t d_model, std::uint64_t heads);

}  // namespace attn
