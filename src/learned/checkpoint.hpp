#pragma once
// The shipped checkpoint's bytes: "ATTNLRN1", then little-endian u32 version, layers, heads,
// d_model, context, scale (0 = 1/√d_k, 1 = none), parameter count, u64 seed, u64 steps, and the
// parameters as float32 in Layout order.
#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"

namespace attn::learned {

struct Checkpoint {
  ModelConfig config;
  std::uint64_t seed = 0;
  std::uint64_t steps = 0;
  std::vector<float> parameters;
};

std::vector<std::uint8_t> serialize(const Checkpoint& c);

// Throws attn::Error when the bytes are not a checkpoint of this format (wrong magic, truncated,
// a size out of range, a non-finite weight).
Checkpoint deserialize(const std::uint8_t* bytes, std::size_t size);

}  // namespace attn::learned
