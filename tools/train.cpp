// The native trainer behind `npm run train`: trains the learned-heads model from a seed and
// writes the checkpoint (web/learned-heads.bin) and its record (web/learned-heads.json).
// The same command reproduces both bit for bit. Options (all optional) override the defaults:
//   --seed N --steps N --batch N --lr X --warmup N --decay N --layers N --heads N --d-model N
//   --context N --scale sqrt|none --weight-decay X --init-sigma X --eval-every N --out DIR
//   --no-write (tuning: print the curve, write nothing)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "head_scores.hpp"
#include "learned/checkpoint.hpp"
#include "learned/goals.hpp"
#include "learned/text_run.hpp"
#include "learned/trainer.hpp"
#include "learned/vocabulary.hpp"

using namespace attn::learned;
using attn::HeadScores;

namespace {

std::string json_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// The lesson's sentence, "the cat sat on the mat because it was tired", is 43 characters; the
// model reads 32 after BOS, so the record shows its first 32: every head's scores and the mean loss.
std::string lesson_sentence(const ModelConfig& c, const std::vector<float>& params) {
  const std::string text = std::string("the cat sat on the mat because it was tired").substr(0, c.context - 1);
  const TextRun r = run_text(c, params.data(), text);
  std::ostringstream j;
  j << "{ \"text\": \"" << text << "\", \"meanLoss\": " << json_number(r.mean_loss) << ", \"heads\": [";
  for (std::size_t l = 0; l < c.layers; ++l) {
    for (std::size_t h = 0; h < c.heads; ++h) {
      const HeadScores& s = r.heads[l * c.heads + h];
      j << (l + h ? ",\n    " : "\n    ") << "{ \"layer\": " << l + 1 << ", \"head\": " << h + 1
        << ", \"previousToken\": " << json_number(s.previous_token) << ", \"firstToken\": "
        << json_number(s.first_token) << ", \"induction\": " << json_number(s.induction) << " }";
      std::printf("  lesson sentence, layer %zu head %zu: previousToken %.3f firstToken %.3f induction %.3f\n",
                  l + 1, h + 1, s.previous_token, s.first_token, s.induction);
    }
  }
  j << "\n  ] }";
  return j.str();
}

}  // namespace

int main(int argc, char** argv) {
  TrainerOptions o = recipe();
  std::size_t steps = 4000, eval_every = kGoalCheckEvery;  // the shipped checkpoint: 4000 steps of recipe()
  std::string out_dir = "web";
  bool write = true;
  const char* scale = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "train: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seed") o.seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--steps") steps = std::strtoull(next(), nullptr, 10);
    else if (a == "--batch") o.batch = std::strtoull(next(), nullptr, 10);
    else if (a == "--lr") o.learning_rate = std::strtof(next(), nullptr);
    else if (a == "--warmup") o.warmup = std::strtoull(next(), nullptr, 10);
    else if (a == "--decay") o.decay_steps = std::strtoull(next(), nullptr, 10);
    else if (a == "--layers") o.model.layers = std::strtoull(next(), nullptr, 10);
    else if (a == "--heads") o.model.heads = std::strtoull(next(), nullptr, 10);
    else if (a == "--d-model") o.model.d_model = std::strtoull(next(), nullptr, 10);
    else if (a == "--context") o.model.context = std::strtoull(next(), nullptr, 10);
    else if (a == "--scale") scale = next();
    else if (a == "--weight-decay") o.weight_decay = std::strtof(next(), nullptr);
    else if (a == "--init-sigma") o.init_sigma = std::strtof(next(), nullptr);
    else if (a == "--min-length") o.task.min_length = std::strtoull(next(), nullptr, 10);
    else if (a == "--max-length") o.task.max_length = std::strtoull(next(), nullptr, 10);
    else if (a == "--distinct") o.task.distinct_share = std::strtod(next(), nullptr);
    else if (a == "--distinct-from") o.distinct_from = std::strtoull(next(), nullptr, 10);
    else if (a == "--eval-every") eval_every = std::strtoull(next(), nullptr, 10);
    else if (a == "--out") out_dir = next();
    else if (a == "--no-write") write = false;
    else {
      std::fprintf(stderr, "train: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (o.task.max_length && !o.task.min_length) o.task.min_length = task_for(o.model.context).min_length;
  if (!o.task.max_length) {
    const double share = o.task.distinct_share;
    o.task = task_for(o.model.context);
    o.task.distinct_share = share;
  }

  try {
    if (scale) o.model.scale = scale_mode(scale);
    Trainer t(o);
    const auto start = std::chrono::steady_clock::now();
    double train_seconds = 0;
    std::ostringstream curve;
    StepReport r;
    Evaluation e;
    GoalScores g;
    long first_met = -1;
    while (t.steps() < steps) {
      const auto t0 = std::chrono::steady_clock::now();
      r = t.step(std::min(eval_every, steps - t.steps()));
      train_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      e = evaluate_goals(o.model, t.parameters().data(), o.task);
      g = goal_scores(o.model, e);
      if (met(g) && first_met < 0) first_met = long(t.steps());
      std::printf("step %5zu  loss %.3f  copy1 %.3f copy2 %.3f | eval copy1 %.3f copy2 %.3f ratio %.3f  prev %.2f ind %.2f first %.2f%s\n",
                  r.step, r.loss, r.loss_first_copy, r.loss_second_copy, e.loss_first_copy, e.loss_second_copy,
                  g.loss_ratio, g.previous_token, g.induction, g.first_token, met(g) ? "  goals met" : "");
      std::fflush(stdout);
      curve << (curve.tellp() > 0 ? ",\n    " : "") << "{ \"step\": " << r.step
            << ", \"trainingLoss\": " << json_number(r.loss)
            << ", \"evaluationLossFirstCopy\": " << json_number(e.loss_first_copy)
            << ", \"evaluationLossSecondCopy\": " << json_number(e.loss_second_copy) << " }";
    }
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%zu steps in %.1f s of training (%.1f steps/s), %.1f s with evaluation; goals first met at step %ld\n",
                t.steps(), train_seconds, double(t.steps()) / train_seconds, total, first_met);
    for (std::size_t l = 0; l < o.model.layers; ++l) {
      for (std::size_t h = 0; h < o.model.heads; ++h) {
        const HeadScores& s = e.heads[l * o.model.heads + h];
        std::printf("  layer %zu head %zu: previousToken %.3f firstToken %.3f induction %.3f\n", l + 1, h + 1,
                    s.previous_token, s.first_token, s.induction);
      }
    }
    if (!write) return 0;

    Checkpoint c{o.model, o.seed, t.steps(), t.parameters()};
    const auto bytes = serialize(c);
    std::ofstream(out_dir + "/learned-heads.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    std::ostringstream j;
    j << "{\n  \"generator\": \"tools/train.cpp (npm run train); do not edit\",\n"
      << "  \"seed\": " << o.seed << ",\n  \"steps\": " << t.steps() << ",\n"
      << "  \"config\": { \"layers\": " << o.model.layers << ", \"heads\": " << o.model.heads
      << ", \"dModel\": " << o.model.d_model << ", \"context\": " << o.model.context << ", \"scale\": \""
      << scale_name(o.model.scale) << "\" },\n"
      << "  \"training\": { \"batch\": " << o.batch << ", \"learningRate\": " << json_number(o.learning_rate)
      << ", \"warmup\": " << o.warmup << ", \"decaySteps\": " << o.decay_steps
      << ", \"weightDecay\": " << json_number(o.weight_decay) << ", \"beta1\": " << json_number(o.beta1)
      << ", \"beta2\": " << json_number(o.beta2) << ", \"stringLengths\": [" << o.task.min_length << ", "
      << o.task.max_length << "], \"distinctLetterShare\": " << json_number(o.task.distinct_share)
      << ", \"distinctLettersFromStep\": " << o.distinct_from << " },\n"
      << "  \"evaluation\": { \"seed\": " << kGoalSeed << ", \"sequences\": " << kGoalSequences
      << ", \"lossFirstCopy\": " << json_number(e.loss_first_copy)
      << ", \"lossSecondCopy\": " << json_number(e.loss_second_copy)
      << ", \"ratio\": " << json_number(g.loss_ratio) << ", \"goalsMet\": " << (met(g) ? "true" : "false")
      << ", \"goalsFirstMetAtStep\": " << first_met << " },\n  \"finalTrainingLoss\": " << json_number(r.loss)
      << ",\n  \"heads\": [";
    for (std::size_t l = 0; l < o.model.layers; ++l) {
      for (std::size_t h = 0; h < o.model.heads; ++h) {
        const HeadScores& s = e.heads[l * o.model.heads + h];
        j << (l + h ? ",\n    " : "\n    ") << "{ \"layer\": " << l + 1 << ", \"head\": " << h + 1
          << ", \"previousToken\": " << json_number(s.previous_token) << ", \"firstToken\": "
          << json_number(s.first_token) << ", \"induction\": " << json_number(s.induction) << " }";
      }
    }
    j << "\n  ],\n  \"lessonSentence\": " << lesson_sentence(o.model, t.parameters());
    j << ",\n  \"curve\": [\n    " << curve.str() << "\n  ]\n}\n";
    std::ofstream(out_dir + "/learned-heads.json") << j.str();
    std::printf("wrote %s/learned-heads.bin (%zu bytes) and %s/learned-heads.json\n", out_dir.c_str(),
                bytes.size(), out_dir.c_str());
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "train: %s\n", ex.what());
    return 1;
  }
  return 0;
}
