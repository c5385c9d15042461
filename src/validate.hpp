#pragma once
// Input checks shared by the attention entry points. Each throws attn::Error with a message
// that names the matrix, its sizes and the rule it breaks. Rows and columns are 1-based in
// messages, as a learner counts them.
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

// A matrix's size alone: within limits::kMaxRows and kMaxCols, then not empty. 64-bit, so a
// size from JS that a 32-bit size_t would wrap (2³² + 3 rows) is reported as given.
void validate_shape(const char* name, std::uint64_t rows, std::uint64_t cols);

// n queries and m keys, at least one of each, fit one n×m matrix of the explaining path
// (limits::kMaxScoreEntries).
void validate_score_shape(std::uint64_t n, std::uint64_t m);

// validate_shape, and every entry finite ("NaN at Q row 2 column 1").
void validate_matrix(const char* name, const MatrixView& m);

// Every entry finite, with validate_matrix's message for the first that is not; any size.
void validate_finite(const char* name, const MatrixView& m);

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

// The float32 range rule for scores and outputs, the same in the explaining path (attention.hpp)
// and the streaming path (kernels/streaming_attention.hpp), so the two accept the same inputs and fail with the
// same error. Their float32 kernels add in different orders: near float32's edge one may round
// to ±inf where the other does not, and a partial sum may overflow where the whole does not
// (keys [3e38, −3e38] against q = [2, 2]: 6e38 − 6e38 = 0). So every score (entry of QKᵀ,
// hidden or not) and every output of magnitude >= kRecomputeAbove, or not finite, is
// recomputed in double, and that value alone decides: outside float32's range it is an error
// (scores first, the first in row-major order), else it replaces the float32 one.
inline constexpr float kRecomputeAbove = 0x1p100f;  // ≈ 1.27e30, far from float32's 3.4e38

// Σ_t a[t]·b[t] in double: each product exact, added in order t = 0 … d−1.
double dot_in_double(const float* a, const float* b, std::size_t d);

// Scores row[j] = q·k_j for j < count, k_j at k + j·k_stride, computed in float32: those that
// the range rule recomputes are replaced by dot_in_double rounded to float32. Returns the
// first j whose score is outside float32's range, or count.
std::size_t settle_scores(float* row, const float* q, const float* k, std::size_t k_stride,
                          std::size_t count, std::size_t d);

// Output row i of attention (out, d_v floats) recomputed in double: reference::attention_ref
// on that one query, with its hidden flags (m) and the scale used. Returns the first column
// outside float32's range, or d_v.
std::size_t output_row_in_double(const MatrixView& q_row, const MatrixView& k, const MatrixView& v,
                                 const std::uint8_t* hidden, float scale, bool mask_after_softmax,
                                 float* out);

// The two errors of the range rule, with 0-based positions (written 1-based).
[[noreturn]] void throw_score_overflow(std::size_t i, std::size_t j);
[[noreturn]] void throw_output_overflow(std::size_t i, std::size_t j);

// After a computation: the first non-finite entry means float32 overflowed. `what` describes
// the matrix ("Scores"), `why` says which inputs were too large.
void check_no_overflow(const char* what, const float* data, std::size_t rows, std::size_t cols,
                       const char* why);

}  // namespace attn
