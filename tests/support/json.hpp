#pragma once
// A small JSON reader for the test fixtures: objects, arrays, numbers, strings, true/false/null.
// Enough for files this project writes itself; not a general-purpose parser.
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace testsupport {

struct Json {
  enum class Type { null, boolean, number, string, array, object };
  Type type = Type::null;
  bool boolean = false;
  double number = 0.0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  bool is_null() const { return type == Type::null; }
  bool has(const std::string& key) const { return object.count(key) != 0; }
  // Throw std::runtime_error naming the missing key or wrong type.
  const Json& operator[](const std::string& key) const;
  const Json& operator[](std::size_t i) const;
  std::size_t size() const { return type == Type::array ? array.size() : object.size(); }
  double as_number() const;
  const std::string& as_string() const;
  bool as_bool() const;
};

Json parse_json(const std::string& text);
Json read_json_file(const std::string& path);

}  // namespace testsupport
