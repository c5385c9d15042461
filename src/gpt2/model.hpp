#pragma once
// GPT-2 as Hugging Face stores it (openai-community/gpt2, distilgpt2, gpt2-medium): the shapes
// read from a safetensors file and the float32 weights the forward pass runs on.
// loader.hpp fills a Weights from a safetensors file (safetensors.hpp); forward.hpp runs it.
#include <cstddef>
#include <string>
#include <vector>

#include "../aligned_vector.hpp"

namespace attn::gpt2 {

enum class DType { F32, F16, BF16 };

struct Config {
  std::size_t layers = 0;      // n_layer: from the h.N keys
  std::size_t heads = 0;       // n_head: from config.json, or d_model / 64
  std::size_t d_model = 0;     // n_embd: wte's columns
  std::size_t context = 0;     // n_positions: wpe's rows
  std::size_t vocab_size = 0;  // wte's rows
  DType dtype = DType::F32;    // the file's dtype: wte's (a file's tensors normally all share one)
  std::size_t parameters = 0;  // floats the model keeps (no buffers, no tied lm_head)
  std::size_t head_size() const { return heads == 0 ? 0 : d_model / heads; }
};

// One transformer block. Conv1D weights are [in, out] row-major, applied as x·W + b.
struct Block {
  AlignedVector<float> ln1_weight, ln1_bias;      // [d]
  AlignedVector<float> attn_weight, attn_bias;    // c_attn: [d, 3d], [3d]  (q | k | v)
  AlignedVector<float> proj_weight, proj_bias;    // attn.c_proj: [d, d], [d]
  AlignedVector<float> ln2_weight, ln2_bias;      // [d]
  AlignedVector<float> fc_weight, fc_bias;        // mlp.c_fc: [d, 4d], [4d]
  AlignedVector<float> mlp_proj_weight, mlp_proj_bias;  // mlp.c_proj: [4d, d], [d]
};

struct Weights {
  Config config;
  AlignedVector<float> wte;  // [vocab, d]; also the unembedding (tied)
  AlignedVector<float> wpe;  // [context, d]
  std::vector<Block> blocks;
  AlignedVector<float> lnf_weight, lnf_bias;  // [d]
};

}  // namespace attn::gpt2
