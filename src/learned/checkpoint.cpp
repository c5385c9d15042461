#include "checkpoint.hpp"

#include <cmath>
#include <cstring>

#include "../error.hpp"

namespace attn::learned {

namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'L', 'R', 'N', '1'};
constexpr std::uint32_t kVersion = 1;

void put(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}

struct Reader {
  const std::uint8_t* p;
  std::size_t left;
  std::uint64_t get(int bytes) {
    if (left < std::size_t(bytes)) throw Error("the checkpoint is truncated");
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= std::uint64_t(p[i]) << (8 * i);
    p += bytes, left -= std::size_t(bytes);
    return v;
  }
};

}  // namespace

std::vector<std::uint8_t> serialize(const Checkpoint& c) {
  std::vector<std::uint8_t> out(kMagic, kMagic + 8);
  put(out, kVersion, 4);
  put(out, c.config.layers, 4);
  put(out, c.config.heads, 4);
  put(out, c.config.d_model, 4);
  put(out, c.config.context, 4);
  put(out, c.config.scale == ScaleMode::none ? 1 : 0, 4);
  put(out, c.parameters.size(), 4);
  put(out, c.seed, 8);
  put(out, c.steps, 8);
  for (float f : c.parameters) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    put(out, bits, 4);
  }
  return out;
}

Checkpoint deserialize(const std::uint8_t* bytes, std::size_t size) {
  if (size < 8 || std::memcmp(bytes, kMagic, 8) != 0) throw Error("the file is not a learned-heads checkpoint");
  Reader r{bytes + 8, size - 8};
  if (r.get(4) != kVersion) throw Error("the checkpoint's format version is not 1");
  Checkpoint c;
  c.config.layers = std::size_t(r.get(4));
  c.config.heads = std::size_t(r.get(4));
  c.config.d_model = std::size_t(r.get(4));
  c.config.context = std::size_t(r.get(4));
  const std::uint64_t scale = r.get(4);
  if (scale > 1) throw Error("the checkpoint's scale mode is unknown");
  c.config.scale = scale ? ScaleMode::none : ScaleMode::sqrt_d_k;
  validate(c.config);
  const std::uint64_t count = r.get(4);
  if (count != Layout(c.config).total) throw Error("the checkpoint's parameter count does not match its sizes");
  c.seed = r.get(8);
  c.steps = r.get(8);
  if (r.left != count * 4) throw Error("the checkpoint is truncated or has trailing bytes");
  c.parameters.resize(std::size_t(count));
  for (auto& f : c.parameters) {
    const auto bits = std::uint32_t(r.get(4));
    std::memcpy(&f, &bits, 4);
    if (!std::isfinite(f)) throw Error("the checkpoint holds a weight that is not a finite number");
  }
  return c;
}

}  // namespace attn::learned
