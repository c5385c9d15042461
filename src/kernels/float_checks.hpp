#pragma once
// The core's checks that scan floats with a kernel: inputs finite (finite.hpp's vectorized pass,
// then a scan that names the entry) and the float32 range rule the two attention paths share.
// They sit above the kernels they use and below the attention paths; validate.hpp, below the
// kernels, holds the checks that need none and the messages' wording.
#include <cstddef>
#include <cstdint>

#include "matrix.hpp"

namespace attn {

// validate_shape, and every entry finite ("NaN at Q row 2 column 1").
void validate_matrix(const char* name, const MatrixView& m);

// Every entry finite, with validate_matrix's message for the first that is not; any size.
void validate_finite(const char* name, const MatrixView& m);

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
