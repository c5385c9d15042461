#pragma once
// The one exception type the core throws for bad input. Its message names the matrix,
// the sizes and the rule, so a caller can show it to a learner as it is.
#include <stdexcept>
#include <string>

namespace attn {

class Error : public std::invalid_argument {
 public:
  explicit Error(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace attn
