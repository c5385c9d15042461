// Embind layer of the learned-heads module (issue 13), for web/attention.js only: a module of
// its own, loaded when a page first asks for a learned model or a trainer, so the calculator's
// module stays as small as it was. Models and trainers live in this module's heap between
// calls, named by handles; errors come back as { error: message } (convert.hpp).
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "convert_head_scores.hpp"
#include "error.hpp"
#include "learned/checkpoint.hpp"
#include "learned/goals.hpp"
#include "learned/model.hpp"
#include "learned/text_run.hpp"
#include "learned/trainer.hpp"
#include "learned/vocabulary.hpp"
#include "limits.hpp"
#include "validate.hpp"

using emscripten::val;
using namespace attn::bindings;

namespace {

val learned_config(const attn::learned::ModelConfig& c, std::uint64_t seed, std::uint64_t steps) {
  val out = val::object();
  out.set("layers", double(c.layers));
  out.set("heads", double(c.heads));
  out.set("dModel", double(c.d_model));
  out.set("context", double(c.context));
  out.set("vocabulary", std::string(attn::learned::kSymbols));
  out.set("scale", std::string(attn::learned::scale_name(c.scale)));
  out.set("seed", exact_count(seed, "seed"));
  out.set("steps", exact_count(steps, "steps"));
  return out;
}

// The core's run of BOS + text (text_run.hpp), as JS objects: tokens, the loss of each predicted
// position, and every head's weights (n×n, row-major) with its scores.
val learned_run(const attn::learned::ModelConfig& c, const std::vector<float>& params, const std::string& text) {
  using namespace attn::learned;
  const TextRun r = run_text(c, params.data(), text);
  const std::size_t n = r.n();
  std::vector<std::string> names;
  for (int t : r.tokens) names.push_back(token_name(t));
  val layers = val::array();
  for (std::size_t l = 0; l < c.layers; ++l) {
    val heads = val::array();
    for (std::size_t h = 0; h < c.heads; ++h) {
      const float* w = r.head_weights(l * c.heads + h);
      val head = val::object();
      head.set("weights", float32_array(std::vector<float>(w, w + n * n)));
      set_head_scores(head, r.heads[l * c.heads + h], n);
      heads.call<void>("push", head);
    }
    val layer = val::object();
    layer.set("heads", heads);
    layers.call<void>("push", layer);
  }
  val out = val::object();
  out.set("tokens", strings(names));
  out.set("n", double(n));
  out.set("loss", float32_array(r.loss));
  out.set("layers", layers);
  return out;
}

// Models and trainers, named by a handle (a plain number, the slot's index): Embind's class
// machinery would add ~4 KB gzip of glue JS for two classes.
struct LearnedModel {
  attn::learned::ModelConfig config;
  std::vector<float> params;
  std::uint64_t seed = 0, steps = 0;
};

std::vector<std::unique_ptr<LearnedModel>>& learned_models() {
  static std::vector<std::unique_ptr<LearnedModel>> models;
  return models;
}

std::vector<std::unique_ptr<attn::learned::Trainer>>& learned_trainers() {
  static std::vector<std::unique_ptr<attn::learned::Trainer>> trainers;
  return trainers;
}

// bytes: the checkpoint file's bytes (Uint8Array). → { handle } or { error }.
val learned_load(val bytes) {
  return guarded([&] {
    const auto data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    attn::learned::Checkpoint c = attn::learned::deserialize(data.data(), data.size());
    auto m = std::make_unique<LearnedModel>(LearnedModel{c.config, std::move(c.parameters), c.seed, c.steps});
    return handle_result(keep(learned_models(), std::move(m)));
  });
}

val learned_model_config(double handle) {
  return guarded([&] {
    const LearnedModel& m = find(learned_models(), handle, "model");
    return learned_config(m.config, m.seed, m.steps);
  });
}

val learned_model_run(double handle, std::string text) {
  return guarded([&] {
    const LearnedModel& m = find(learned_models(), handle, "model");
    return learned_run(m.config, m.params, text);
  });
}

void learned_model_free(double handle) {
  const std::size_t i = std::size_t(handle);
  if (handle >= 0 && i < learned_models().size()) learned_models()[i].reset();
}

val goal_numbers(double previous_token, double induction, double first_token, double ratio) {
  val out = val::object();
  out.set("previousToken", previous_token);
  out.set("induction", induction);
  out.set("firstToken", first_token);
  out.set("ratio", ratio);
  return out;
}

// The goals (src/learned/goals.hpp): their thresholds, the evaluation set and the trainer's
// schedule; with a model's handle (not −1), its scores on that set and whether they meet them.
val learned_goals(double handle) {
  return guarded([&] {
    namespace L = attn::learned;
    const L::GoalThresholds& t = L::kGoalThresholds;
    val out = val::object();
    out.set("thresholds", goal_numbers(t.previous_token, t.induction, t.first_token, t.loss_ratio));
    out.set("seed", exact_count(L::kGoalSeed, "seed"));
    out.set("sequences", double(L::kGoalSequences));
    out.set("checkEvery", double(L::kGoalCheckEvery));
    out.set("maxSteps", double(L::goal_max_steps()));
    if (handle != -1) {
      const LearnedModel& m = find(learned_models(), handle, "model");
      const L::GoalScores g = L::goal_scores(m.config, L::evaluate_goals(m.config, m.params.data()));
      val scores = goal_numbers(g.previous_token, g.induction, g.first_token, g.loss_ratio);
      scores.set("lossFirstCopy", g.loss_first_copy);
      scores.set("lossSecondCopy", g.loss_second_copy);
      out.set("scores", scores);
      out.set("met", L::met(g));
    }
    return out;
  });
}

// createTrainer's defaults: the shipped checkpoint's recipe.
val learned_recipe() {
  const attn::learned::TrainerOptions o = attn::learned::recipe();
  val out = val::object();
  out.set("seed", exact_count(o.seed, "seed"));
  out.set("layers", double(o.model.layers));
  out.set("heads", double(o.model.heads));
  out.set("dModel", double(o.model.d_model));
  out.set("context", double(o.model.context));
  out.set("batch", double(o.batch));
  out.set("learningRate", double(o.learning_rate));
  out.set("scale", std::string(attn::learned::scale_name(o.model.scale)));
  return out;
}

// args: { seed, layers, heads, dModel, context, batch, learningRate, scale: 'sqrt' | 'none' },
// every field present (attention.js fills in the defaults). The core checks every value
// (trainer.hpp's validate). → { handle } or { error }.
val learned_trainer_create(val args) {
  return guarded([&] {
    attn::learned::TrainerOptions o = attn::learned::recipe();
    o.seed = seed_arg(args);
    o.model.layers = size_arg(args, "layers");
    o.model.heads = size_arg(args, "heads");
    o.model.d_model = size_arg(args, "dModel");
    o.model.context = size_arg(args, "context");
    o.batch = size_arg(args, "batch");
    o.learning_rate = float(args["learningRate"].as<double>());
    o.model.scale = attn::learned::scale_mode(args["scale"].as<std::string>());
    return handle_result(keep(learned_trainers(), std::make_unique<attn::learned::Trainer>(o)));
  });
}

val learned_trainer_step(double handle, double k) {
  return guarded([&] {
    // 64-bit first, so a k too large for size_t gets the range's message, not the narrowing's.
    const std::uint64_t count = whole_number<std::uint64_t>(k, "k");
    attn::validate_range("k", count, 1, attn::limits::kMaxStepsPerCall);
    const attn::learned::StepReport r = find(learned_trainers(), handle, "trainer").step(std::size_t(count));
    val out = val::object();
    out.set("step", double(r.step));
    out.set("loss", r.loss);
    out.set("lossFirstCopy", r.loss_first_copy);
    out.set("lossSecondCopy", r.loss_second_copy);
    return out;
  });
}

// A model with the trainer's current weights (a copy). → { handle } or { error }.
val learned_trainer_model(double handle) {
  return guarded([&] {
    const attn::learned::Trainer& t = find(learned_trainers(), handle, "trainer");
    auto m = std::make_unique<LearnedModel>(
        LearnedModel{t.options().model, t.parameters(), t.options().seed, t.steps()});
    return handle_result(keep(learned_models(), std::move(m)));
  });
}

void learned_trainer_free(double handle) {
  const std::size_t i = std::size_t(handle);
  if (handle >= 0 && i < learned_trainers().size()) learned_trainers()[i].reset();
}

// Bytes this module's allocator has handed out: the heap-flatness test reads it.
double heap_bytes_in_use() { return double(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(learned_heads) {
  emscripten::function("learnedLoad", &learned_load);
  emscripten::function("learnedModelConfig", &learned_model_config);
  emscripten::function("learnedModelRun", &learned_model_run);
  emscripten::function("learnedModelFree", &learned_model_free);
  emscripten::function("learnedGoals", &learned_goals);
  emscripten::function("learnedRecipe", &learned_recipe);
  emscripten::function("learnedTrainerCreate", &learned_trainer_create);
  emscripten::function("learnedTrainerStep", &learned_trainer_step);
  emscripten::function("learnedTrainerModel", &learned_trainer_model);
  emscripten::function("learnedTrainerFree", &learned_trainer_free);
  emscripten::function("heapBytesInUse", &heap_bytes_in_use);
}
