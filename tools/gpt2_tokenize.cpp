// gpt2_tokenize: the GPT-2 tokenizer (src/gpt2/tokenizer.hpp) as a filter, so a Node test can compare
// it with gpt-3-encoder on many strings in one process (tests/js/gpt2-tokenizer.test.mjs).
//   build-native/gpt2_tokenize [tokenizer file] < lines > lines
// Each input line is a JSON string (as JSON.stringify writes it; a lone surrogate becomes U+FFFD,
// as the package's TextEncoder makes it), or 'x' and the text's bytes in hex, for bytes that are
// not UTF-8. Each output line is the ids as a JSON array, or {"error": "..."}.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "error.hpp"
#include "gpt2/tokenizer.hpp"
#include "utf8.hpp"

namespace {

std::uint32_t hex_value(const std::string& s, std::size_t at, std::size_t digits) {
  if (at + digits > s.size()) throw std::runtime_error("truncated escape");
  return static_cast<std::uint32_t>(std::stoul(s.substr(at, digits), nullptr, 16));
}

// A JSON string literal to UTF-8, UTF-16 escapes paired into code points.
std::string parse_json_string(const std::string& line) {
  if (line.size() < 2 || line.front() != '"' || line.back() != '"') throw std::runtime_error("not a JSON string");
  std::string out;
  for (std::size_t i = 1; i + 1 < line.size();) {
    const char c = line[i++];
    if (c != '\\') {
      out += c;
      continue;
    }
    const char e = line[i++];
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::uint32_t u = hex_value(line, i, 4);
        i += 4;
        if (u >= 0xD800 && u <= 0xDBFF && i + 6 <= line.size() && line[i] == '\\' && line[i + 1] == 'u') {
          const std::uint32_t low = hex_value(line, i + 2, 4);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        if (u >= 0xD800 && u <= 0xDFFF) u = 0xFFFD;  // a lone surrogate, as TextEncoder writes it
        attn::append_utf8(out, static_cast<char32_t>(u));
        break;
      }
      default: out += e; break;  // \" \\ \/
    }
  }
  return out;
}

std::string parse_hex(const std::string& line) {
  std::string out;
  for (std::size_t i = 1; i + 1 < line.size(); i += 2) out += static_cast<char>(hex_value(line, i, 2));
  return out;
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
  }
  return out + '"';
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : ATTN_GPT2_TOKENIZER_FILE;
  std::ifstream file(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file.good() && !file.eof()) {
    std::cerr << "gpt2_tokenize: cannot read " << path << " (tools/build.sh native makes it)\n";
    return 2;
  }
  try {
    const auto tokenizer = attn::gpt2::Tokenizer::from_bytes(bytes.data(), bytes.size());
    std::string line, out;
    while (std::getline(std::cin, line)) {
      out.clear();
      try {
        const std::string text = (!line.empty() && line[0] == 'x') ? parse_hex(line) : parse_json_string(line);
        out += '[';
        bool first = true;
        for (const std::int32_t id : tokenizer.encode(text)) {
          if (!first) out += ',';
          out += std::to_string(id);
          first = false;
        }
        out += ']';
      } catch (const std::exception& e) {
        out = "{\"error\":" + json_quote(e.what()) + "}";
      }
      std::cout << out << '\n';
    }
  } catch (const attn::Error& e) {
    std::cerr << "gpt2_tokenize: " << path << ": " << e.what() << '\n';
    return 2;
  }
  return 0;
}
