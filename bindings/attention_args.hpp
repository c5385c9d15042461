#pragma once
// Arguments and results both Embind modules of the attention core read and write: matrices and
// masks from attention.js's argument objects, and one head's result under its JS names.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <vector>

#include "attention.hpp"
#include "mask.hpp"
#include "matrix.hpp"

#include "convert.hpp"

namespace attn::bindings {

inline attn::Matrix matrix_arg(const val& args, const char* data, const char* rows, const char* cols) {
  return attn::Matrix(size_arg(args, rows), size_arg(args, cols),
                      emscripten::convertJSArrayToNumberVector<float>(args[data]));
}

inline std::vector<float> floats_arg(const val& args, const char* key) {
  const val v = args[key];
  if (v.isUndefined() || v.isNull()) return {};
  return emscripten::convertJSArrayToNumberVector<float>(v);
}

// The union mask: { maskCausal: bool, maskKeys: m flags or empty, maskHidden: n×m flags or empty }.
inline attn::Mask mask_arg(const val& args) {
  attn::Mask mask;
  mask.is_causal = args["maskCausal"].as<bool>();
  mask.padded_keys = emscripten::convertJSArrayToNumberVector<std::uint8_t>(args["maskKeys"]);
  mask.hidden_pairs = emscripten::convertJSArrayToNumberVector<std::uint8_t>(args["maskHidden"]);
  return mask;
}

// Every field under its JS name (attention.d.ts); hidden holds the MaskReason bits per cell.
inline val attention_result(const attn::AttentionResult& r) {
  val out = val::object();
  out.set("scale", r.scale);
  out.set("scores", float32_array(r.scores.data));
  out.set("scaledBeforeMask", float32_array(r.scaled_before_mask.data));
  out.set("scaled", float32_array(r.scaled.data));
  out.set("rowMax", float32_array(r.row_max));
  out.set("exp", float32_array(r.exp.data));
  out.set("rowSum", float32_array(r.row_sum));
  out.set("weights", float32_array(r.weights.data));
  out.set("output", float32_array(r.output.data));
  out.set("hidden", uint8_array(r.hidden));
  out.set("fullyMasked", uint8_array(r.fully_masked));
  return out;
}

}  // namespace attn::bindings
