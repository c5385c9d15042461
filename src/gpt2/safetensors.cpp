// The safetensors header: a small strict JSON reader that interprets the header's schema as it
// reads (so a hostile 100 MB header costs its tensors' entries, never a tree of JSON values),
// then the checks the format's reference implementation makes, in words a learner can act on.
#include "gpt2/safetensors.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "error.hpp"
#include "gpt2/grouped.hpp"
#include "utf8.hpp"

namespace attn::gpt2::safetensors {

namespace {

constexpr const char* kNotSafetensors = "This file is not a safetensors file: ";

struct DtypeInfo {
  Dtype type;
  const char* name;
  const char* words;
  unsigned bits;
};

constexpr DtypeInfo kDtypes[] = {
    {Dtype::BOOL, "BOOL", "true/false values", 8},
    {Dtype::U8, "U8", "8-bit unsigned integers", 8},
    {Dtype::I8, "I8", "8-bit integers", 8},
    {Dtype::F8_E5M2, "F8_E5M2", "8-bit floats", 8},
    {Dtype::F8_E4M3, "F8_E4M3", "8-bit floats", 8},
    {Dtype::F8_E8M0, "F8_E8M0", "8-bit scales", 8},
    {Dtype::I16, "I16", "16-bit integers", 16},
    {Dtype::U16, "U16", "16-bit unsigned integers", 16},
    {Dtype::F16, "F16", "16-bit floats (half precision)", 16},
    {Dtype::BF16, "BF16", "16-bit brain floats (bfloat16)", 16},
    {Dtype::I32, "I32", "32-bit integers", 32},
    {Dtype::U32, "U32", "32-bit unsigned integers", 32},
    {Dtype::F32, "F32", "32-bit floats", 32},
    {Dtype::F64, "F64", "64-bit floats (double precision)", 64},
    {Dtype::I64, "I64", "64-bit integers", 64},
    {Dtype::U64, "U64", "64-bit unsigned integers", 64},
    {Dtype::C64, "C64", "64-bit complex numbers", 64},
    {Dtype::F4, "F4", "4-bit floats", 4},
    {Dtype::F6_E2M3, "F6_E2M3", "6-bit floats", 6},
    {Dtype::F6_E3M2, "F6_E3M2", "6-bit floats", 6},
};

const DtypeInfo& info(Dtype t) {
  for (const DtypeInfo& d : kDtypes) {
    if (d.type == t) return d;
  }
  return kDtypes[0];  // unreachable: every enumerator is listed
}

[[noreturn]] void refuse(const std::string& why) { throw Error(kNotSafetensors + why); }

std::string number(std::uint64_t v) { return std::to_string(v); }


// A tensor's name as a message shows it: quoted, control characters escaped, cut at 100 bytes.
std::string shown(std::string_view name) {
  std::string s = "\"";
  std::size_t i = 0;
  for (; i < name.size() && i < 100; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
  }
  if (i < name.size()) s += "…";
  return s + "\"";
}


// What the first bytes of a file that is not safetensors look like, for the message.
std::string looks_like(const std::uint8_t* p, std::size_t n) {
  const auto starts = [&](const char* prefix) {
    const std::size_t k = std::strlen(prefix);
    return n >= k && std::memcmp(p, prefix, k) == 0;
  };
  if (starts("PK\x03\x04")) {
    return " It is a ZIP archive, as PyTorch's pytorch_model.bin is: download model.safetensors instead.";
  }
  if (n >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5) {
    return " It is a Python pickle, as an old PyTorch checkpoint is: download model.safetensors instead.";
  }
  std::size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  if (i < n && p[i] == '{') {
    return " It starts like a JSON file (config.json is one): the weights are in model.safetensors.";
  }
  if (i < n && p[i] == '<') {
    return " It starts like a web page (HTML), perhaps an error page a server sent instead of the file.";
  }
  if (starts("version https://git-lfs")) {
    return " It is a Git LFS pointer, not the file it points to: download the file itself.";
  }
  return "";
}

class Parser {
 public:
  Parser(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}

  [[noreturn]] void syntax(const std::string& what) const {
    refuse("its header is not valid JSON (at byte " + number(i_) + " of the header: " + what + ").");
  }

  void ws() {
    while (i_ < n_ && (p_[i_] == ' ' || p_[i_] == '\t' || p_[i_] == '\n' || p_[i_] == '\r')) ++i_;
  }
  bool at_end() const { return i_ >= n_; }
  std::uint8_t peek() const { return i_ < n_ ? p_[i_] : 0; }

  void expect(char c, const char* what) {
    ws();
    if (i_ >= n_) syntax(std::string("the header ends where ") + what + " should be");
    if (p_[i_] != static_cast<std::uint8_t>(c)) syntax(std::string("expected ") + what);
    ++i_;
  }

  // After an element of an object or array: true if another follows (a comma), false at `close`.
  bool next(char close) {
    ws();
    if (i_ >= n_) syntax(std::string("the header ends before its closing '") + close + "'");
    if (p_[i_] == ',') {
      ++i_;
      return true;
    }
    if (p_[i_] == static_cast<std::uint8_t>(close)) {
      ++i_;
      return false;
    }
    syntax(std::string("expected ',' or '") + close + "'");
  }

  // Opens an object or array; true if it is empty (and then closed already).
  bool open(char open_c, char close, const char* what) {
    expect(open_c, what);
    ws();
    if (peek() == static_cast<std::uint8_t>(close)) {
      ++i_;
      return true;
    }
    return false;
  }

  std::string string() {
    expect('"', "a string in double quotes");
    std::string s;
    for (;;) {
      if (i_ >= n_) syntax("a string is not closed");
      const std::uint8_t c = p_[i_];
      if (c == '"') {
        ++i_;
        return s;
      }
      if (c < 0x20) syntax("a control character inside a string");
      if (c == '\\') {
        escape(s);
        continue;
      }
      if (c < 0x80) {
        s += static_cast<char>(c);
        ++i_;
        continue;
      }
      const std::size_t k = utf8_char_length(std::string_view(reinterpret_cast<const char*>(p_), n_), i_);
      if (k == 0) syntax("bytes that are not UTF-8");
      s.append(reinterpret_cast<const char*>(p_ + i_), k);
      i_ += k;
    }
  }

  // A whole number 0 … 2^64 − 1 in JSON's grammar; `what` names it for a message.
  std::uint64_t whole_number(const std::string& what) {
    ws();
    const std::size_t start = i_;
    if (peek() == '-') {
      skip_number();
      refuse(what + " is negative (" + text(start) + ").");
    }
    if (peek() < '0' || peek() > '9') syntax("expected a number");
    std::uint64_t v = 0;
    bool overflow = false;
    if (peek() == '0') {
      ++i_;
    } else {
      while (peek() >= '0' && peek() <= '9') {
        const unsigned d = peek() - '0';
        if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) overflow = true;
        v = v * 10 + d;
        ++i_;
      }
    }
    if (peek() == '.' || peek() == 'e' || peek() == 'E') {
      i_ = start;
      skip_number();
      refuse(what + " is not a whole number (" + text(start) + ").");
    }
    if (peek() >= '0' && peek() <= '9') syntax("a number with a leading zero");
    if (overflow) refuse(what + " is too large for any file (" + text(start) + ").");
    return v;
  }

  // Any JSON value, read and dropped: a key the format does not define.
  void skip_value(std::size_t depth) {
    if (depth > kMaxJsonDepth) syntax("values nested more than " + number(kMaxJsonDepth) + " deep");
    ws();
    const std::uint8_t c = peek();
    if (c == '"') {
      (void)string();
    } else if (c == '{') {
      if (open('{', '}', "'{'")) return;
      do {
        (void)string();
        expect(':', "':' after a key");
        skip_value(depth + 1);
      } while (next('}'));
    } else if (c == '[') {
      if (open('[', ']', "'['")) return;
      do {
        skip_value(depth + 1);
      } while (next(']'));
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      skip_number();
    } else if (!literal("true") && !literal("false") && !literal("null")) {
      syntax(i_ >= n_ ? "the header ends where a value should be" : "expected a value");
    }
  }

 private:
  std::string text(std::size_t start) const {
    std::string s(reinterpret_cast<const char*>(p_ + start), std::min<std::size_t>(i_ - start, 40));
    return i_ - start > 40 ? s + "…" : s;
  }

  bool literal(const char* word) {
    const std::size_t k = std::strlen(word);
    if (n_ - i_ >= k && std::memcmp(p_ + i_, word, k) == 0) {
      i_ += k;
      return true;
    }
    return false;
  }

  void digits() {
    if (peek() < '0' || peek() > '9') syntax("a number with no digits where one is needed");
    while (peek() >= '0' && peek() <= '9') ++i_;
  }

  void skip_number() {
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
      if (peek() >= '0' && peek() <= '9') syntax("a number with a leading zero");
    } else {
      digits();
    }
    if (peek() == '.') {
      ++i_;
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      digits();
    }
  }

  unsigned hex4() {
    if (n_ - i_ < 4) syntax("a \\u escape cut short");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const std::uint8_t c = p_[i_++];
      unsigned d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else syntax("a \\u escape with a character that is not a hex digit");
      v = v * 16 + d;
    }
    return v;
  }

  void escape(std::string& s) {
    ++i_;  // the backslash
    if (i_ >= n_) syntax("a string is not closed");
    const std::uint8_t c = p_[i_++];
    switch (c) {
      case '"': s += '"'; return;
      case '\\': s += '\\'; return;
      case '/': s += '/'; return;
      case 'b': s += '\b'; return;
      case 'f': s += '\f'; return;
      case 'n': s += '\n'; return;
      case 'r': s += '\r'; return;
      case 't': s += '\t'; return;
      case 'u': break;
      default: syntax("an unknown escape in a string");
    }
    char32_t cp = hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) syntax("a \\u escape that is half of a character (a lone low surrogate)");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (n_ - i_ < 2 || p_[i_] != '\\' || p_[i_ + 1] != 'u') syntax("a \\u escape that is half of a character (a lone high surrogate)");
      i_ += 2;
      const unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) syntax("a \\u escape that is half of a character (a high surrogate without its low one)");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(s, cp);
  }

  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t i_ = 0;
};

struct Entry {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t offsets[2] = {0, 0};
};

Entry read_entry(Parser& in, std::string name) {
  Entry e;
  e.name = std::move(name);
  const std::string who = "tensor " + shown(e.name);
  bool has_dtype = false, has_shape = false, has_offsets = false;
  in.ws();
  if (in.peek() != '{') {
    refuse("in its header, " + who + " is not described by an object {\"dtype\", \"shape\", \"data_offsets\"}.");
  }
  if (!in.open('{', '}', "'{'")) {
    do {
      const std::string key = in.string();
      in.expect(':', "':' after a key");
      if (key == "dtype") {
        if (has_dtype) refuse("in its header, " + who + " has \"dtype\" twice.");
        has_dtype = true;
        in.ws();
        if (in.peek() != '"') refuse("in its header, the \"dtype\" of " + who + " is not a string.");
        e.dtype = in.string();
      } else if (key == "shape") {
        if (has_shape) refuse("in its header, " + who + " has \"shape\" twice.");
        has_shape = true;
        in.ws();
        if (in.peek() != '[') refuse("in its header, the \"shape\" of " + who + " is not a list of sizes.");
        if (!in.open('[', ']', "'['")) {
          do {
            if (e.shape.size() == kMaxRank) {
              refuse("in its header, " + who + " has more than " + number(kMaxRank) + " dimensions.");
            }
            e.shape.push_back(in.whole_number("a size in the shape of " + who));
          } while (in.next(']'));
        }
      } else if (key == "data_offsets") {
        if (has_offsets) refuse("in its header, " + who + " has \"data_offsets\" twice.");
        has_offsets = true;
        in.ws();
        if (in.peek() != '[') refuse("in its header, the \"data_offsets\" of " + who + " are not a list [begin, end].");
        std::size_t count = 0;
        if (!in.open('[', ']', "'['")) {
          do {
            const std::uint64_t v = in.whole_number("an offset of " + who);
            if (count < 2) e.offsets[count] = v;
            ++count;
          } while (in.next(']'));
        }
        if (count != 2) {
          refuse("in its header, the \"data_offsets\" of " + who + " hold " + number(count) +
                 " numbers, not two [begin, end].");
        }
      } else {
        in.skip_value(2);  // a key the format does not define: ignored, as the reference does
      }
    } while (in.next('}'));
  }
  if (!has_dtype) refuse("in its header, " + who + " has no \"dtype\".");
  if (!has_shape) refuse("in its header, " + who + " has no \"shape\".");
  if (!has_offsets) refuse("in its header, " + who + " has no \"data_offsets\".");
  return e;
}

}  // namespace

const char* dtype_name(Dtype t) { return info(t).name; }
const char* dtype_words(Dtype t) { return info(t).words; }
unsigned dtype_bits(Dtype t) { return info(t).bits; }

const Tensor* Header::find(std::string_view name) const {
  for (const Tensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::uint64_t header_length(const std::uint8_t* first, std::size_t size, std::uint64_t file_size) {
  if (file_size == 0) refuse("it is empty (0 bytes): the download may have failed.");
  if (file_size < 8 || size < 8) {
    refuse("it is only " + grouped(std::min<std::uint64_t>(file_size, size)) +
           " bytes long, shorter than the 8 bytes that give a safetensors header's length.");
  }
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | first[i];
  if (n == 0) refuse("its first 8 bytes give a header length of 0, and a header holds at least \"{}\".");
  if (n > kMaxHeaderBytes) {
    // A length this large means the first bytes are something else (text, an archive): the
    // number itself would tell a learner nothing.
    refuse("its first 8 bytes do not give the length of a safetensors header (the format allows up to " +
           size_in_words(kMaxHeaderBytes) + ")." + looks_like(first, size));
  }
  if (n > file_size - 8) {
    refuse("its first 8 bytes give a header of " + grouped(n) + " bytes, but the file ends " +
           grouped(file_size - 8) + " bytes after them." + looks_like(first, size));
  }
  return n;
}

Header parse_header(const std::uint8_t* json, std::size_t size, std::uint64_t file_size) {
  Header h;
  h.file_size = file_size;
  h.header_length = size;
  h.data_start = 8 + std::uint64_t(size);
  if (size == 0 || h.data_start > file_size) refuse("its header does not fit in the file.");

  Parser in(json, size);
  in.ws();
  if (in.at_end()) refuse("its header is blank.");
  if (in.peek() != '{') refuse("its header is not a JSON object {...}." + looks_like(json, size));
  std::vector<Entry> entries;
  bool has_metadata = false;
  if (!in.open('{', '}', "'{'")) {
    do {
      std::string key = in.string();
      in.expect(':', "':' after a key");
      if (key == "__metadata__") {
        if (has_metadata) refuse("its header has \"__metadata__\" twice.");
        has_metadata = true;
        in.ws();
        if (in.peek() != '{') refuse("its header's \"__metadata__\" is not an object of strings.");
        if (!in.open('{', '}', "'{'")) {
          do {
            std::string k = in.string();
            in.expect(':', "':' after a key");
            in.ws();
            if (in.peek() != '"') {
              refuse("its header's \"__metadata__\" holds a value that is not a string, for " + shown(k) + ".");
            }
            std::string v = in.string();
            for (const auto& kv : h.metadata) {
              if (kv.first == k) refuse("its header's \"__metadata__\" has the key " + shown(k) + " twice.");
            }
            h.metadata.emplace_back(std::move(k), std::move(v));
          } while (in.next('}'));
        }
      } else {
        entries.push_back(read_entry(in, std::move(key)));
      }
    } while (in.next('}'));
  }
  in.ws();
  if (!in.at_end()) in.syntax("text after the header's closing '}'");

  // No name twice.
  std::vector<const Entry*> by_name;
  by_name.reserve(entries.size());
  for (const Entry& e : entries) by_name.push_back(&e);
  std::sort(by_name.begin(), by_name.end(), [](const Entry* a, const Entry* b) { return a->name < b->name; });
  for (std::size_t i = 1; i < by_name.size(); ++i) {
    if (by_name[i]->name == by_name[i - 1]->name) refuse("its header names tensor " + shown(by_name[i]->name) + " twice.");
  }

  h.tensors.reserve(entries.size());
  for (Entry& e : entries) {
    Tensor t;
    t.name = std::move(e.name);
    const std::string who = "tensor " + shown(t.name);
    const DtypeInfo* d = nullptr;
    for (const DtypeInfo& k : kDtypes) {
      if (e.dtype == k.name) d = &k;
    }
    if (!d) {
      refuse(who + " has the dtype " + shown(e.dtype) +
             ", which the format does not define (it has F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL and a few more).");
    }
    t.dtype = d->type;
    t.shape = std::move(e.shape);
    t.begin = e.offsets[0];
    t.end = e.offsets[1];
    if (t.end < t.begin) {
      refuse(who + " has data_offsets [" + number(t.begin) + ", " + number(t.end) + "] that end before they begin.");
    }
    // Elements and bytes, checked: a product of sizes can exceed 2^64 long before it is absurd.
    // A zero anywhere makes the tensor empty, whatever the other sizes.
    const bool empty = std::find(t.shape.begin(), t.shape.end(), std::uint64_t{0}) != t.shape.end();
    std::uint64_t elements = empty ? 0 : 1;
    bool overflow = false;
    for (const std::uint64_t s : t.shape) {
      if (empty || overflow) break;
      if (elements > std::numeric_limits<std::uint64_t>::max() / s) overflow = true;
      else elements *= s;
    }
    const std::uint64_t bits = d->bits;
    if (!overflow && elements > std::numeric_limits<std::uint64_t>::max() / bits) overflow = true;
    if (overflow) refuse(who + " has the shape " + shape_text(t.shape) + ", more numbers than any file can hold.");
    t.elements = elements;
    const std::uint64_t need_bits = elements * bits;
    const std::uint64_t have = t.bytes();
    if (need_bits % 8 != 0 || need_bits / 8 != have) {
      refuse(who + " is " + d->name + " of shape " + shape_text(t.shape) + ": " + number(elements) + " numbers of " +
             (bits % 8 == 0 ? number(bits / 8) + (bits == 8 ? " byte" : " bytes") : number(bits) + " bits") +
             ", but its data_offsets [" + number(t.begin) + ", " + number(t.end) + "] hold " + number(have) +
             " bytes. The shape and the bytes disagree.");
    }
    h.tensors.push_back(std::move(t));
  }
  // File order: by where the bytes begin (empty tensors first at a tie), then by name.
  std::sort(h.tensors.begin(), h.tensors.end(), [](const Tensor& a, const Tensor& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.name < b.name;
  });
  const std::uint64_t data_size = file_size - h.data_start;
  for (Tensor& t : h.tensors) {
    if (t.end > data_size) {
      const bool cut = t.begin <= data_size;
      throw Error("The file ends at byte " + grouped(file_size) + " but tensor " + shown(t.name) +
                  " needs bytes up to " +
                  (t.end > std::numeric_limits<std::uint64_t>::max() - h.data_start ? "past 2^64"
                                                                                     : grouped(h.data_start + t.end)) +
                  (cut ? ": the download was probably cut short." : ": its data_offsets point past the end of the file."));
    }
    t.begin += h.data_start;
    t.end += h.data_start;
  }
  const Tensor* last = nullptr;  // the non-empty tensor that ends last so far
  for (const Tensor& t : h.tensors) {
    if (t.begin == t.end) continue;
    if (last && t.begin < last->end) {
      refuse("tensors " + shown(last->name) + " and " + shown(t.name) + " overlap: the first has bytes " +
             number(last->begin) + " to " + number(last->end) + " of the file and the second " + number(t.begin) +
             " to " + number(t.end) + ".");
    }
    if (!last || t.end > last->end) last = &t;
  }
  return h;
}

Header parse(const std::uint8_t* file, std::size_t size) {
  const std::uint64_t n = header_length(file, size, size);
  return parse_header(file + 8, static_cast<std::size_t>(n), size);
}

std::string size_in_words(std::uint64_t bytes) {
  if (bytes < 1000) return number(bytes) + (bytes == 1 ? " byte" : " bytes");
  static const char* const kUnits[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  double v = double(bytes) / 1000.0;
  std::size_t u = 0;
  while (v >= 999.5 && u + 1 < std::size(kUnits)) {
    v /= 1000.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, kUnits[u]);
  return buf;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += number(shape[i]);
  }
  return s + "]";
}

}  // namespace attn::gpt2::safetensors
