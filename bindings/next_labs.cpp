// Embind layer of the labs past the lesson (issue 40): positional schemes (src/positions.hpp),
// FlashAttention's online softmax step by step (src/tiled_attention.hpp), decoding with a KV cache, grouped K/V heads and a cache's size
// (src/kv_cache.hpp). Their own module, next-labs-{simd,scalar}, which a
// page loads only when one of these labs is shown (loadNextLabs()): the four labs' embed, whose
// full module is within its budget to the last kilobyte, does not grow by a byte.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <vector>

#include "kv_cache.hpp"
#include "positions.hpp"
#include "tiled_attention.hpp"
#include "matrix.hpp"

#include "attention_args.hpp"
#include "convert.hpp"

using emscripten::val;
using namespace attn::bindings;

namespace {

// args: { k, v (the cache, m×dK and m×dV, m may be 0), m, dK, dV, q, kNew, vNew }
val decode_step(val args) {
  return guarded([&] {
    const attn::Matrix k = matrix_arg(args, "k", "m", "dK"), v = matrix_arg(args, "v", "m", "dV");
    const attn::DecodeStepResult r = attn::decode_step(k, v, floats_arg(args, "q"), floats_arg(args, "kNew"), floats_arg(args, "vNew"));
    val out = val::object();
    out.set("scale", r.scale);
    out.set("scores", float32_array(r.scores));
    out.set("weights", float32_array(r.weights));
    out.set("output", float32_array(r.output));
    out.set("k", float32_array(r.k.data));
    out.set("v", float32_array(r.v.data));
    return out;
  });
}

// args: { q (n×d), k, v (n×dKv each), n, d, dKv, heads, kvHeads, causal }
val grouped_attention(val args) {
  return guarded([&] {
    const attn::Matrix q = matrix_arg(args, "q", "n", "d"), k = matrix_arg(args, "k", "n", "dKv"),
                       v = matrix_arg(args, "v", "n", "dKv");
    const attn::GroupedResult r = attn::grouped_attention(q, k, v, count_arg(args, "heads"), count_arg(args, "kvHeads"),
                                                          args["causal"].as<bool>());
    val heads = val::array();
    for (const attn::GroupedHead& head : r.heads) {
      val h = attention_result(head.attention);
      h.set("kvHead", double(head.kv_head));
      heads.call<void>("push", h);
    }
    val out = val::object();
    out.set("heads", heads);
    out.set("output", float32_array(r.output.data));
    out.set("parameters", exact_count(r.parameters, "the parameter count"));
    out.set("cacheBytesPerToken", double(r.cache_bytes_per_token));
    return out;
  });
}

// args: { layers, kvHeads, dHead, tokens, bytesPerValue } → { value }
val kv_cache_bytes(val args) {
  return guarded([&] {
    val out = val::object();
    out.set("value", double(attn::kv_cache_bytes(count_arg(args, "layers"), count_arg(args, "kvHeads"), count_arg(args, "dHead"),
                                                 count_arg(args, "tokens"), count_arg(args, "bytesPerValue"))));
    return out;
  });
}

// args: { q (n×d), k (m×d), v (m×dV), n, m, d, dV, tile, causal }
val tiled_attention(val args) {
  return guarded([&] {
    const attn::Matrix q = matrix_arg(args, "q", "n", "d"), k = matrix_arg(args, "k", "m", "d"), v = matrix_arg(args, "v", "m", "dV");
    const attn::TiledResult r = attn::tiled_attention(q, k, v, size_arg(args, "tile"), args["causal"].as<bool>());
    val tiles = val::array();
    for (const attn::TileStep& s : r.tiles) {
      val t = val::object();
      t.set("row", double(s.row));
      t.set("start", double(s.start));
      t.set("end", double(s.end));
      t.set("scores", float32_array(s.scores));
      t.set("max", s.max);
      t.set("rescale", s.rescale);
      t.set("sum", s.sum);
      t.set("output", float32_array(s.output));
      tiles.call<void>("push", t);
    }
    val out = val::object();
    out.set("output", float32_array(r.output.data));
    out.set("tiles", tiles);
    out.set("skipped", double(r.skipped));
    out.set("peakFloats", double(r.peak_floats));
    out.set("fullPeakFloats", double(r.full_peak_floats));
    return out;
  });
}

// args: { n, d, dV, tile, causal, seed } → { peakFloats, fullPeakFloats }: both paths on seeded inputs, steps not kept
val attention_peak_floats(val args) {
  return guarded([&] {
    const attn::PeakFloats p = attn::attention_peak_floats(size_arg(args, "n"), size_arg(args, "d"), size_arg(args, "dV"),
                                                           size_arg(args, "tile"), args["causal"].as<bool>(), seed_arg(args));
    val out = val::object();
    out.set("peakFloats", double(p.tiled));
    out.set("fullPeakFloats", double(p.plain));
    return out;
  });
}

// args: { q, k (n×dK), v (n×dV), n, dK, dV, scheme, order (n indices, or empty), causal, seed, alibiSlope }
val positional_attention(val args) {
  return guarded([&] {
    const attn::Matrix q = matrix_arg(args, "q", "n", "dK"), k = matrix_arg(args, "k", "n", "dK"), v = matrix_arg(args, "v", "n", "dV");
    attn::PositionalOptions options;
    options.scheme = attn::position_scheme_from_string(args["scheme"].as<std::string>());
    for (double i : emscripten::convertJSArrayToNumberVector<double>(args["order"])) options.order.push_back(std::size_t(i));
    options.causal = args["causal"].as<bool>();
    options.seed = seed_arg(args);
    options.alibi_slope = args["alibiSlope"].as<double>();
    const attn::PositionalResult r = attn::positional_attention(q, k, v, options);
    val out = val::object();
    out.set("q", float32_array(r.q.data));
    out.set("k", float32_array(r.k.data));
    out.set("v", float32_array(r.v.data));
    out.set("bias", float32_array(r.bias.data));
    out.set("scale", r.scale);
    out.set("scores", float32_array(r.scores.data));
    out.set("weights", float32_array(r.weights.data));
    out.set("output", float32_array(r.output.data));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_calc_next_labs) {
  emscripten::function("positionalAttention", &positional_attention);
  emscripten::function("tiledAttention", &tiled_attention);
  emscripten::function("attentionPeakFloats", &attention_peak_floats);
  emscripten::function("decodeStep", &decode_step);
  emscripten::function("groupedAttention", &grouped_attention);
  emscripten::function("kvCacheBytes", &kv_cache_bytes);
}
