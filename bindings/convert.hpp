#pragma once
// What both Embind modules (embind.cpp: the calculator; learned.cpp: the learned heads) share:
// numbers in from JS checked before they narrow, typed-array copies out (never views into the
// wasm heap, which growth would detach), and C++ exceptions turned into { error: message }.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "cost.hpp"
#include "error.hpp"
#include "limits.hpp"

namespace attn::bindings {

using emscripten::val;

// The largest whole number a double (a JS number) holds exactly, with every smaller one: 2⁵³ − 1.
inline constexpr double kMaxExactInteger = double(attn::limits::kMaxExactCount);

// Integers arrive as doubles. attention.js checks their form (a whole number); the core checks
// each against its range. This is the last line before the narrowing, so a value too large for
// T cannot wrap (2³² + 1 heads as 1 head on wasm32) but is refused.
template <class T>
T whole_number(double value, const char* name) {
  const double max = std::min(double(std::numeric_limits<T>::max()), kMaxExactInteger);
  if (!(value >= 0 && value <= max && std::floor(value) == value)) {
    std::string message = std::string(name) + " must be a whole number from 0 to " + std::to_string(std::uint64_t(max));
    if (value >= 0 && std::floor(value) == value && value <= kMaxExactInteger) {
      message += " (got " + std::to_string(std::uint64_t(value)) + ")";
    }
    throw attn::Error(message);
  }
  return T(value);
}

inline std::size_t size_arg(const val& args, const char* key) {
  return whole_number<std::size_t>(args[key].as<double>(), key);
}

// A count the core checks against its range itself: 64-bit, so a value a 32-bit size_t would
// wrap (2³² + 1) reaches that check as given.
inline std::uint64_t count_arg(const val& args, const char* key) {
  return whole_number<std::uint64_t>(args[key].as<double>(), key);
}

// A seed: attention.js passes a whole number from 0 to 2⁵³ − 1, exact in a double.
inline std::uint64_t seed_arg(const val& args) { return whole_number<std::uint64_t>(args["seed"].as<double>(), "seed"); }

// A count for JS: refused unless a double holds it exactly (a wrong last digit is worse than an error).
inline double exact_count(std::uint64_t value, const std::string& what) {
  if (value > attn::limits::kMaxExactCount) throw attn::Error(attn::count_too_large(what + " " + std::to_string(value)));
  return double(value);
}

inline val float32_array(const std::vector<float>& v) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

inline val uint8_array(const std::vector<std::uint8_t>& v) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

inline val float64_array(const std::vector<double>& v) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

inline val strings(const std::vector<std::string>& items) {
  val out = val::array();
  for (const std::string& item : items) out.call<void>("push", item);
  return out;
}

inline val index_array(const std::vector<std::size_t>& indices) {
  val out = val::array();
  for (std::size_t i : indices) out.call<void>("push", double(i));
  return out;
}

// Runs `compute`, turning any C++ exception into { error: message }.
// The try/catch lives in this one function; guarded() below only adapts each lambda to it, so
// the exception handling is compiled once, not once per binding.
inline val guard_call(val (*call)(void*), void* context) {
  std::string message;
  try {
    return call(context);
  } catch (const std::bad_alloc&) {
    message = "out of memory: the inputs are too large for this page";
  } catch (const std::exception& e) {
    message = e.what();
  }
  val out = val::object();
  out.set("error", message);
  return out;
}

template <class F>
val guarded(F&& compute) {
  using Lambda = std::remove_reference_t<F>;
  return guard_call([](void* c) { return (*static_cast<Lambda*>(c))(); }, &compute);
}

// Objects that live in a module's heap between calls (models, trainers, loaders), named by a
// handle: a plain number, the slot's index. Embind's class machinery would add glue JS per class.
// Stores `item` in the first free slot; the handle is its index.
template <class T>
double keep(std::vector<std::unique_ptr<T>>& slots, std::unique_ptr<T> item) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) {
      slots[i] = std::move(item);
      return double(i);
    }
  }
  slots.push_back(std::move(item));
  return double(slots.size() - 1);
}

template <class T>
T& find(std::vector<std::unique_ptr<T>>& slots, double handle, const char* what) {
  const std::size_t i = whole_number<std::size_t>(handle, "handle");
  if (i >= slots.size() || !slots[i]) throw attn::Error(std::string("this ") + what + " was disposed");
  return *slots[i];
}

inline val handle_result(double handle) {
  val out = val::object();
  out.set("handle", handle);
  return out;
}

}  // namespace attn::bindings
