#include "support/json.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace testsupport {

namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  Json document() {
    Json v = value();
    skip_space();
    if (pos_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  bool literal(const char* word) {
    const std::string w = word;
    if (s_.compare(pos_, w.size(), w) == 0) {
      pos_ += w.size();
      return true;
    }
    return false;
  }

  Json value() {
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v.type = Json::Type::object;
      if (consume('}')) return v;
      do {
        skip_space();
        std::string key = string_literal();
        expect(':');
        v.object.emplace(std::move(key), value());
      } while (consume(','));
      expect('}');
    } else if (c == '[') {
      ++pos_;
      v.type = Json::Type::array;
      if (consume(']')) return v;
      do v.array.push_back(value());
      while (consume(','));
      expect(']');
    } else if (c == '"') {
      v.type = Json::Type::string;
      v.string = string_literal();
    } else if (literal("true")) {
      v.type = Json::Type::boolean;
      v.boolean = true;
    } else if (literal("false")) {
      v.type = Json::Type::boolean;
    } else if (literal("null")) {
      v.type = Json::Type::null;
    } else {
      const char* start = s_.c_str() + pos_;
      char* end = nullptr;
      v.type = Json::Type::number;
      v.number = std::strtod(start, &end);
      if (end == start) fail("unexpected character");
      pos_ += static_cast<std::size_t>(end - start);
    }
    return v;
  }

  std::string string_literal() {
    if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size()) fail("bad escape");
        const char e = s_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'u': fail("\\u escapes are not supported by this reader");
          default: c = e;  // \" \\ \/
        }
      }
      out.push_back(c);
    }
    if (pos_ >= s_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  const std::string& s_;
  std::size_t pos_ = 0;
};

}  // namespace

const Json& Json::operator[](const std::string& key) const {
  if (type != Type::object) throw std::runtime_error("JSON: not an object, looking up " + key);
  auto it = object.find(key);
  if (it == object.end()) throw std::runtime_error("JSON: missing key " + key);
  return it->second;
}

const Json& Json::operator[](std::size_t i) const {
  if (type != Type::array || i >= array.size()) throw std::runtime_error("JSON: bad index");
  return array[i];
}

double Json::as_number() const {
  if (type != Type::number) throw std::runtime_error("JSON: not a number");
  return number;
}

const std::string& Json::as_string() const {
  if (type != Type::string) throw std::runtime_error("JSON: not a string");
  return string;
}

bool Json::as_bool() const {
  if (type != Type::boolean) throw std::runtime_error("JSON: not a boolean");
  return boolean;
}

Json parse_json(const std::string& text) { return Parser(text).document(); }

Json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_json(buffer.str());
}

}  // namespace testsupport
