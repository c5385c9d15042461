#pragma once
// ATTN_SEEDED_RANDOM(rng, 11): a Random named rng, seeded with 11 unless ATTN_TEST_SEED is set.
// The seed is printed with the test's output and captured into any failure message.
#include <doctest/doctest.h>

#include <cstdint>

#include "support/random.hpp"

#define ATTN_SEEDED_RANDOM(name, fallback)                                               \
  const std::uint64_t name##_seed = testsupport::test_seed(fallback);                    \
  MESSAGE("random seed " << name##_seed << " (set ATTN_TEST_SEED to replay another)");   \
  CAPTURE(name##_seed);                                                                  \
  testsupport::Random name(name##_seed)
