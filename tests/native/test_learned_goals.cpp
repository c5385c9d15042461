// Issue 29: the learned heads' goals, defined once in src/learned/goals.hpp: their thresholds,
// met() at its boundaries, the reduction to the best head of each kind, and the evaluation set,
// which is the same on every call and is the one the shipped checkpoint's record reports.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "error.hpp"
#include "head_scores.hpp"
#include "learned/checkpoint.hpp"
#include "learned/goals.hpp"
#include "learned/text_run.hpp"
#include "learned/trainer.hpp"
#include "support/json.hpp"

using namespace attn::learned;
using attn::HeadScores;
using attn::head_scores;

namespace {

constexpr const char* kShippedCheckpoint = ATTN_FIXTURE_DIR "/../../web/learned-heads.bin";
constexpr const char* kShippedRecord = ATTN_FIXTURE_DIR "/../../web/learned-heads.json";

GoalScores at_thresholds() {
  GoalScores g;
  g.previous_token = kGoalThresholds.previous_token;
  g.induction = kGoalThresholds.induction;
  g.first_token = kGoalThresholds.first_token;
  g.loss_ratio = kGoalThresholds.loss_ratio;
  return g;
}

// The record writes numbers with 6 significant digits (tools/train.cpp's json_number).
void check_recorded(double measured, double recorded) {
  CHECK(std::abs(measured - recorded) <= 5e-6 * std::abs(recorded));
}

}  // namespace

TEST_CASE("the goals' thresholds, evaluation set and schedule") {
  CHECK(kGoalThresholds.previous_token == 0.7);
  CHECK(kGoalThresholds.induction == 0.7);
  CHECK(kGoalThresholds.first_token == 0.3);
  CHECK(kGoalThresholds.loss_ratio == 0.15);
  CHECK(kGoalSeed == 20261201);
  CHECK(kGoalSequences == 256);
  CHECK(kGoalCheckEvery == 250);
  // Training gives up where the recipe's cosine decay ends, not at a number of its own.
  CHECK(goal_max_steps() == recipe().decay_steps);
  CHECK(goal_max_steps() == 6000);
}

TEST_CASE("met() holds at each threshold and fails just beyond it") {
  CHECK(met(at_thresholds()));
  GoalScores g = at_thresholds();
  g.previous_token = std::nextafter(g.previous_token, 0.0);
  CHECK_FALSE(met(g));
  g = at_thresholds();
  g.induction = std::nextafter(g.induction, 0.0);
  CHECK_FALSE(met(g));
  g = at_thresholds();
  g.first_token = std::nextafter(g.first_token, 0.0);
  CHECK_FALSE(met(g));
  g = at_thresholds();
  g.loss_ratio = std::nextafter(g.loss_ratio, 1.0);
  CHECK_FALSE(met(g));
  g = at_thresholds();
  g.loss_ratio = std::nan("");  // an undefined ratio meets nothing
  CHECK_FALSE(met(g));
}

TEST_CASE("goal_scores takes the best layer-1 previous-token, layer-2 induction and any-layer sink") {
  ModelConfig c;
  c.layers = 2;
  c.heads = 2;
  Evaluation e;
  e.heads.resize(4);
  e.heads[0].previous_token = 0.2, e.heads[1].previous_token = 0.8;  // layer 1
  e.heads[2].previous_token = 0.95;                                  // layer 2: not a previous-token goal
  e.heads[0].induction = 0.9;                                        // layer 1: not an induction goal
  e.heads[2].induction = 0.6, e.heads[3].induction = 0.75;           // layer 2
  e.heads[1].first_token = 0.1, e.heads[3].first_token = 0.4;
  e.loss_first_copy = 3.0, e.loss_second_copy = 0.3;
  const GoalScores g = goal_scores(c, e);
  CHECK(g.previous_token == 0.8);
  CHECK(g.induction == 0.75);
  CHECK(g.first_token == 0.4);
  CHECK(g.loss_ratio == 0.3 / 3.0);
  CHECK(g.loss_first_copy == 3.0);
  CHECK(g.loss_second_copy == 0.3);

  c.layers = 1;  // no second layer: no induction head
  e.heads.resize(2);
  CHECK(goal_scores(c, e).induction == 0.0);
}

TEST_CASE("the evaluation set is the same sequences on every call, and the seed decides them") {
  const TrainerOptions o = recipe();
  const std::vector<float> p = initial_parameters(o.model, o.seed, o.init_sigma);
  const Evaluation a = evaluate_goals(o.model, p.data());
  const Evaluation b = evaluate_goals(o.model, p.data());
  const Evaluation direct = evaluate(o.model, p.data(), kGoalSeed, kGoalSequences);
  const Evaluation other = evaluate(o.model, p.data(), kGoalSeed + 1, kGoalSequences);
  CHECK(a.loss_first_copy == b.loss_first_copy);
  CHECK(a.loss_second_copy == b.loss_second_copy);
  CHECK(a.loss_first_copy == direct.loss_first_copy);
  CHECK(a.loss_second_copy == direct.loss_second_copy);
  for (std::size_t h = 0; h < a.heads.size(); ++h) {
    CHECK(a.heads[h].previous_token == b.heads[h].previous_token);
    CHECK(a.heads[h].induction == b.heads[h].induction);
    CHECK(a.heads[h].first_token == direct.heads[h].first_token);
  }
  CHECK(a.loss_first_copy != other.loss_first_copy);
  // The untrained model meets none of the head goals.
  const GoalScores g = goal_scores(o.model, a);
  CHECK(g.previous_token < kGoalThresholds.previous_token);
  CHECK(g.induction < kGoalThresholds.induction);
  CHECK(g.loss_ratio > kGoalThresholds.loss_ratio);
  CHECK_FALSE(met(g));
}

TEST_CASE("the shipped checkpoint meets the goals, with the numbers its record reports") {
  std::ifstream in(kShippedCheckpoint, std::ios::binary);
  REQUIRE(in);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  const Checkpoint cp = deserialize(bytes.data(), bytes.size());
  const testsupport::Json record = testsupport::read_json_file(kShippedRecord);
  const testsupport::Json& ev = record["evaluation"];
  REQUIRE(ev["seed"].as_number() == double(kGoalSeed));
  REQUIRE(ev["sequences"].as_number() == double(kGoalSequences));

  const Evaluation e = evaluate_goals(cp.config, cp.parameters.data());
  const GoalScores g = goal_scores(cp.config, e);
  check_recorded(g.loss_first_copy, ev["lossFirstCopy"].as_number());
  check_recorded(g.loss_second_copy, ev["lossSecondCopy"].as_number());
  check_recorded(g.loss_ratio, ev["ratio"].as_number());
  for (std::size_t h = 0; h < e.heads.size(); ++h) {
    CAPTURE(h);
    const testsupport::Json& head = record["heads"][h];
    check_recorded(e.heads[h].previous_token, head["previousToken"].as_number());
    check_recorded(e.heads[h].first_token, head["firstToken"].as_number());
    check_recorded(e.heads[h].induction, head["induction"].as_number());
  }
  CHECK(met(g) == ev["goalsMet"].as_bool());
  CHECK(met(g));
}

TEST_CASE("run_text: a loss per predicted position, every head's weights and its scores") {
  const TrainerOptions o = recipe();
  const std::vector<float> p = initial_parameters(o.model, o.seed, o.init_sigma);
  const TextRun r = run_text(o.model, p.data(), "abcde abcde");
  const std::size_t n = 12;
  REQUIRE(r.n() == n);
  REQUIRE(r.loss.size() == n - 1);
  REQUIRE(r.heads.size() == o.model.layers * o.model.heads);
  REQUIRE(r.weights.size() == r.heads.size() * n * n);
  double sum = 0.0;
  for (float x : r.loss) sum += x;
  CHECK(r.mean_loss == doctest::Approx(sum / double(n - 1)).epsilon(1e-6));
  for (std::size_t h = 0; h < r.heads.size(); ++h) {
    const HeadScores s = head_scores(r.head_weights(h), n, r.tokens.data());
    CHECK(r.heads[h].previous_token == s.previous_token);
    CHECK(r.heads[h].induction == s.induction);
  }
  CHECK_THROWS_AS(run_text(o.model, p.data(), "ABC"), attn::Error);
}

TEST_CASE("the core names the scales and refuses any other name") {
  CHECK(scale_mode("sqrt") == ScaleMode::sqrt_d_k);
  CHECK(scale_mode("none") == ScaleMode::none);
  CHECK(std::string(scale_name(ScaleMode::sqrt_d_k)) == "sqrt");
  CHECK(std::string(scale_name(ScaleMode::none)) == "none");
  CHECK_THROWS_WITH_AS(scale_mode("Sqrt"), "scale must be 'sqrt' (1/√d_k) or 'none' (got \"Sqrt\")", attn::Error);
  CHECK_THROWS_AS(scale_mode(""), attn::Error);
}
