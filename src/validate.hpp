#pragma once
// Input checks shared by the attention entry points. Each throws attn::Error with a message
// that names the matrix, its sizes and the rule it breaks. Rows and columns are 1-based in
// messages, as a learner counts them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "matrix.hpp"

namespace attn {

// "1 row", "3 rows": a count with its noun, for messages.
std::string count(std::size_t n, const char* one, const char* many);

// "3×2": how messages write a shape.
std::string shape(std::size_t rows, std::size_t cols);

// Not empty, within limits:: sizes, and every entry finite ("NaN at Q row 2 column 1").
void validate_matrix(const char* name, const MatrixView& m);

// A bias vector: empty (no bias) or exactly `size` finite entries.
void validate_bias(const char* name, const float* bias, std::size_t entries, std::size_t size);

// lo <= value <= hi, else "<name> must be a whole number from <lo> to <hi>, got <value>".
void validate_range(const char* name, std::size_t value, std::size_t lo, std::size_t hi);

// heads >= 1, heads <= limits::kMaxHeads, and d_model divisible by heads.
void validate_heads(std::uint64_t d_model, std::uint64_t heads);

// After a computation: the first non-finite entry means float32 overflowed. `what` describes
// the matrix ("Scores"), `why` says which inputs were too large.
void check_no_overflow(const char* what, const float* data, std::size_t rows, std::size_t cols,
                       const char* why);

}  // namespace attn
