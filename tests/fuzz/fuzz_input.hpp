#pragma once
// The decoder every harness shares: fuzzer bytes → sizes, numbers, matrices and masks.
//
// Layout (tests/fuzz/make_corpus.py writes seeds in it, so keep the two in step):
// - byte 0 picks the value profile for the whole input:
//     0 small    one byte per number: (int8) / 16, so −8 … 7.9375, exact in float32
//     1 scaled   as small, times 2^e with e = (int8) from byte 1 (subnormals to overflow)
//     2 hostile  one byte per number: < 200 as small, else kSpecial[b − 200] (NaN, ±Inf, ±3e38, −0…)
//     3 raw      four bytes per number, little-endian float32 bits
// - a size is one byte b: b < 255 → 1 + b % typical, the cheap common case. 255 → one more
//   byte c, by c % 8: 0 → 0; 1 → the limit; 2 → limit + 1; 3 → limit − 1; 4 → eight raw bytes
//   (any size_t, SIZE_MAX included); 5 → 2·typical + 1; 6, 7 → 1 + (two bytes, little-endian)
//   % (limit + 2). Large shapes cost far more per execution, so they stay about 1 in 256.
// - once the bytes run out, a generator seeded by them supplies the rest, so a short input can
//   still describe a large matrix (item 6's 10×4096 V is a few bytes).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "mask.hpp"
#include "matrix.hpp"

namespace fuzz {

// Every value the issue names, and the neighbours of float32's edges.
inline const float kSpecial[] = {
    std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
    0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
    1e-40f, -1e-40f, std::numeric_limits<float>::min(), -std::numeric_limits<float>::min(),
    std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 3e38f, -3e38f,
    2e38f, -2e38f, 1e38f, -1e38f, 1e30f, -1e30f, 1.8446744e19f, -1.8446744e19f,
    1e19f, -1e19f, 1e7f, -1e7f, 1e6f, -1e6f, 1e4f, -1e4f,
    88.7f, -88.7f, 104.0f, -104.0f, 16777217.0f, 1e-30f, -1e-30f, 1e-7f,
    0.1f, -0.1f, 0.5f, 1.0f, -1.0f, 2.0f, 3.0f, 1e-20f,
};
inline constexpr std::size_t kSpecialCount = sizeof(kSpecial) / sizeof(kSpecial[0]);

enum class Profile : std::uint8_t { small = 0, scaled = 1, hostile = 2, raw = 3 };

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ size;
    for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
    state_ = h | 1;
    profile_ = Profile(byte() % 4);
    if (profile_ == Profile::scaled) exponent_ = int(std::int8_t(byte()));
  }

  Profile profile() const { return profile_; }

  std::uint8_t byte() {
    if (pos_ < size_) return data_[pos_++];
    // xorshift64*: the tail of a short input, deterministic in its bytes
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return std::uint8_t((state_ * 0x2545f4914f6cdd1dull) >> 56);
  }

  std::uint64_t u16() { return byte() | std::uint64_t(byte()) << 8; }

  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(byte()) << (8 * i);
    return v;
  }

  // One of `choices` (< 256) from one byte.
  std::size_t pick(std::size_t choices) { return byte() % choices; }

  // A size: mostly 1 … typical; sometimes 0, the limit or just past it, or anything at all.
  std::size_t size(std::size_t typical, std::size_t limit) {
    const std::uint8_t b = byte();
    if (b < 255) return 1 + b % typical;
    switch (byte() % 8) {
      case 0: return 0;
      case 1: return limit;
      case 2: return limit + 1;
      case 3: return limit - 1;
      case 4: return std::size_t(u64());
      case 5: return 2 * typical + 1;
      default: return 1 + std::size_t(u16() % (limit + 2));
    }
  }

  float value() {
    switch (profile_) {
      case Profile::small: return small();
      case Profile::scaled: return std::ldexp(small(), exponent_);
      case Profile::hostile: {
        const std::uint8_t b = byte();
        if (b < 200) return float(std::int8_t(b)) / 16.0f;
        return kSpecial[(b - 200) % kSpecialCount];
      }
      case Profile::raw: break;
    }
    std::uint32_t bits = 0;
    for (int i = 0; i < 4; ++i) bits |= std::uint32_t(byte()) << (8 * i);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

  attn::Matrix matrix(std::size_t rows, std::size_t cols) {
    attn::Matrix m(rows, cols);
    for (float& x : m.data) x = value();
    return m;
  }

  std::vector<float> values(std::size_t count) {
    std::vector<float> v(count);
    for (float& x : v) x = value();
    return v;
  }

  // `count` hide flags, at one of four densities: none, all, about half, one in eight.
  std::vector<std::uint8_t> flags(std::size_t count) {
    const std::size_t density = pick(4);
    std::vector<std::uint8_t> f(count);
    for (auto& x : f) {
      const std::uint8_t b = density < 2 ? 0 : byte();
      x = density == 0 ? 0 : density == 1 ? 1 : density == 2 ? (b & 1) : (b % 8 == 0);
    }
    return f;
  }

 private:
  float small() { return float(std::int8_t(byte())) / 16.0f; }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  std::uint64_t state_;
  Profile profile_ = Profile::small;
  int exponent_ = 0;
};

// A mask for n queries and m keys: any union of causal, key padding and custom (each on or off);
// a padding or custom part has the wrong number of flags one time in sixteen, which the core
// must reject.
struct DecodedMask {
  attn::Mask mask;
  bool valid = true;                  // the flags fit n×m
  std::vector<std::uint8_t> hidden;   // n×m MaskReason bits (when valid): what the mask means
};

// Past `max_entries` (n×m over the core's limit, so the call must fail anyway) the flags are
// not spelled out: the mask gets one custom flag, which is wrong for any n×m that large.
inline DecodedMask decode_mask(Input& in, std::size_t n, std::size_t m, std::size_t max_entries) {
  DecodedMask d;
  const std::size_t parts = in.pick(8);  // bit 0 causal, bit 1 key padding, bit 2 custom
  const bool causal = parts & 1, padding = parts & 2, custom = parts & 4;
  const bool wrong = in.pick(16) == 0 || n * m > max_entries;
  d.mask.is_causal = causal;
  if (n * m > max_entries) {
    d.valid = false;
    d.mask.hidden_pairs = {1};
    return d;
  }
  // The wrong count goes to one part only: the key padding if present, else the custom grid.
  // (No flags at all, for an empty Q or K, stay none: right − 1 would wrap around.)
  const auto count = [&](std::size_t right, bool spoil) {
    return spoil && right != 0 ? right + (in.pick(2) ? 1 : std::size_t(-1)) : right;
  };
  const bool spoil_padding = wrong && padding, spoil_custom = wrong && custom && !padding;
  if (padding) d.mask.padded_keys = in.flags(count(m, spoil_padding));
  if (custom) d.mask.hidden_pairs = in.flags(count(n * m, spoil_custom));
  // A spoilt part that came out empty (m − 1 = 0 flags) means "no such part": still valid.
  d.valid = !((spoil_padding && !d.mask.padded_keys.empty()) || (spoil_custom && !d.mask.hidden_pairs.empty()));
  if (!d.valid) return d;
  d.hidden.assign(n * m, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      std::uint8_t why = 0;
      if (causal && j > i) why |= attn::kHiddenCausal;
      if (!d.mask.padded_keys.empty() && d.mask.padded_keys[j] != 0) why |= attn::kHiddenPadding;
      if (!d.mask.hidden_pairs.empty() && d.mask.hidden_pairs[i * m + j] != 0) why |= attn::kHiddenCustom;
      d.hidden[i * m + j] = why;
    }
  }
  return d;
}

// A harness's verdict on a wrong result: print what and where, then abort so libFuzzer saves
// the input as a crash.
[[noreturn]] inline void fail(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "\n*** fuzz check failed: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  std::abort();
}

// FUZZ_CHECK(condition, what[, detail]): fail() unless the condition holds. A macro so that the
// detail string is built only on failure: the checks run on every entry of every result.
#define FUZZ_CHECK(condition, ...)                      \
  do {                                                  \
    if (!(condition)) ::fuzz::fail(__VA_ARGS__);        \
  } while (0)

inline bool all_finite(const std::vector<float>& v) {
  for (float x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

inline double max_abs(const std::vector<float>& v) {
  double m = 0.0;
  for (float x : v) m = std::fmax(m, std::fabs(double(x)));
  return m;
}

}  // namespace fuzz
