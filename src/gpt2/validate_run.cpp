// The checks at the door of GPT-2's forward pass (forward.hpp, validate_run): each refusal in the
// words a learner reads, made once before the pass starts, so that forward.cpp holds the model
// alone.
#include <algorithm>
#include <cstdio>
#include <string>

#include "error.hpp"
#include "gpt2/forward.hpp"
#include "gpt2/grouped.hpp"

namespace attn::gpt2 {

namespace {

// A count JS counts in doubles, shown as its toLocaleString('en-US') shows it: every digit.
std::string grouped_double(double v) {
  char digits[400];
  std::snprintf(digits, sizeof digits, "%.0f", v);
  return grouped_digits(std::string(digits));
}

void check_size(std::size_t got, std::size_t want, const char* what) {
  if (got != want) {
    throw Error(std::string("The model's ") + what + " has " + grouped(std::uint64_t(got)) + " numbers where its shape needs " +
                grouped(std::uint64_t(want)) + ": the weights were not loaded completely.");
  }
}

void check_sizes(const Weights& w) {
  const Config& c = w.config;
  const std::size_t d = c.d_model;
  check_size(w.wte.size(), c.vocab_size * d, "token embedding (wte)");
  check_size(w.wpe.size(), c.context * d, "position embedding (wpe)");
  check_size(w.blocks.size(), c.layers, "list of layers");
  for (const Block& b : w.blocks) {
    check_size(b.ln1_weight.size(), d, "ln_1 weight");
    check_size(b.ln1_bias.size(), d, "ln_1 bias");
    check_size(b.attn_weight.size(), d * 3 * d, "c_attn weight");
    check_size(b.attn_bias.size(), 3 * d, "c_attn bias");
    check_size(b.proj_weight.size(), d * d, "attn.c_proj weight");
    check_size(b.proj_bias.size(), d, "attn.c_proj bias");
    check_size(b.ln2_weight.size(), d, "ln_2 weight");
    check_size(b.ln2_bias.size(), d, "ln_2 bias");
    check_size(b.fc_weight.size(), d * 4 * d, "c_fc weight");
    check_size(b.fc_bias.size(), 4 * d, "c_fc bias");
    check_size(b.mlp_proj_weight.size(), 4 * d * d, "mlp.c_proj weight");
    check_size(b.mlp_proj_bias.size(), d, "mlp.c_proj bias");
  }
  check_size(w.lnf_weight.size(), d, "ln_f weight");
  check_size(w.lnf_bias.size(), d, "ln_f bias");
}

// The heads to switch off and the token to attribute (RunOptions::ablate, attribute).
void validate_interventions(const Config& c, const RunOptions& options) {
  for (std::size_t i = 0; i < options.ablate.size(); ++i) {
    const AblatedHead& a = options.ablate[i];
    const std::string named = "ablate holds layer " + std::to_string(a.layer) + " head " + std::to_string(a.head);
    if (a.layer >= c.layers) {
      throw Error(named + ": GPT-2's layers here are numbered 0 to " + std::to_string(c.layers - 1));
    }
    if (a.head >= c.heads) {
      throw Error(named + ": each layer's heads here are numbered 0 to " + std::to_string(c.heads - 1));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (options.ablate[j].layer == a.layer && options.ablate[j].head == a.head) {
        throw Error(named + " twice: name each head once");
      }
    }
  }
  if (options.attribute && options.attribute_top) {
    throw Error("attribute names one token: a token id, or the likeliest next token, not both");
  }
  if (options.attribute && *options.attribute >= c.vocab_size) {
    throw Error("attribute is token " + std::to_string(*options.attribute) + ", but this model's vocabulary has " +
                grouped(std::uint64_t(c.vocab_size)) + " tokens, numbered 0 to " + grouped(std::uint64_t(c.vocab_size - 1)));
  }
}

}  // namespace

// The messages below are the ones web/api/gpt2.js gave when it made these checks itself: a
// learner reads them in the GPT-2 panel, after its first letter is capitalised.
std::vector<bool> kept_layers(const Config& config, const RunOptions& options) {
  std::vector<bool> kept(config.layers, !options.layers.has_value());
  if (options.layers) {
    for (std::uint64_t l : *options.layers) {
      if (l >= config.layers) {
        throw Error("layers holds " + std::to_string(l) + ": GPT-2's layers here are numbered 0 to " +
                    std::to_string(config.layers - 1));
      }
      kept[std::size_t(l)] = true;
    }
  }
  return kept;
}

std::size_t kept_layer_count(const Config& config, const RunOptions& options) {
  const std::vector<bool> kept = kept_layers(config, options);
  return std::size_t(std::count(kept.begin(), kept.end(), true));
}

void validate_run(const Weights& w, const std::int32_t* ids, std::size_t n, const RunOptions& options) {
  const Config& c = w.config;
  if (c.layers == 0 || c.d_model == 0 || c.heads == 0 || c.d_model % c.heads != 0 || c.vocab_size == 0 ||
      c.context == 0) {
    throw Error("The model's shape is not usable: " + std::to_string(c.layers) + " layers, width " +
                std::to_string(c.d_model) + ", " + std::to_string(c.heads) +
                " heads (the width must split evenly into the heads).");
  }
  check_sizes(w);

  const std::size_t kept = kept_layer_count(c, options);
  if (n == 0) throw Error("There is no text to run: GPT-2 needs at least one token.");
  if (n > c.context) {
    throw Error("the text is " + grouped(std::uint64_t(n)) + " tokens long" +
                (options.end_of_text_first ? " with <|endoftext|> first" : "") + ", more than this model's context of " +
                grouped(std::uint64_t(c.context)) + " tokens");
  }
  // In double, as JS counted them: no product can wrap.
  const double weights = double(kept) * double(c.heads) * double(n) * double(n);
  if (weights > double(kMaxKeptWeights)) {
    throw Error(std::to_string(kept) + (kept == 1 ? " layer" : " layers") + " of " + std::to_string(c.heads) +
                " heads at " + std::to_string(n) + " tokens would return " + grouped_double(weights) +
                " attention weights, more than the " + grouped(kMaxKeptWeights) +
                " one run returns: name fewer layers (options.layers) or use a shorter text");
  }
  validate_interventions(c, options);
  for (std::size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || std::size_t(ids[i]) >= c.vocab_size) {
      throw Error("Token " + std::to_string(i) + " has id " + std::to_string(ids[i]) + ", but this model's vocabulary has " +
                  grouped(std::uint64_t(c.vocab_size)) + " tokens, numbered 0 to " + grouped(std::uint64_t(c.vocab_size - 1)) + ".");
    }
  }
}

}  // namespace attn::gpt2
