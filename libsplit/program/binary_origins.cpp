#include "binary_origins.h"

#include "libsplit/cache_dir.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace libsplit {

namespace {

constexpr const char* kMagic = "libsplit binary origin 1";

uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

void compress(std::array<uint32_t, 8>& h, const unsigned char* block) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 |
           uint32_t(block[4 * i + 2]) << 8 | uint32_t(block[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

}  // namespace



std::string sha256_hex(const unsigned char* data, size_t size) {
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  size_t full = size / 64 * 64;
  for (size_t i = 0; i < full; i += 64) compress(h, data + i);
  // The tail, the 0x80 marker and the bit length, in one or two blocks.
  unsigned char last[128] = {};
  size_t rest = size - full;
  if (rest) std::memcpy(last, data + full, rest);
  last[rest] = 0x80;
  size_t blocks = rest + 9 > 64 ? 2 : 1;
  uint64_t bits = uint64_t(size) * 8;
  for (int i = 0; i < 8; ++i) last[blocks * 64 - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  for (size_t b = 0; b < blocks; ++b) compress(h, last + 64 * b);
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (uint32_t v : h)
    for (int s = 28; s >= 0; s -= 4) out += hex[(v >> s) & 15];
  return out;
}

std::string binary_origins_dir(const std::string& configured) {
  return cache_dir(configured) + "/binaries";
}

bool record_binary_origin(const std::string& dir, const unsigned char* binary, size_t size,
                          const BinaryOrigin& origin, std::string* why) {
  std::string key = sha256_hex(binary, size);
  std::string text = std::string(kMagic) + "\n" + key + "\n" + std::to_string(size) + " " +
                     std::to_string(origin.options.size()) + " " +
                     std::to_string(origin.source.size()) + "\n" + origin.options + origin.source;
  return write_private_file(dir, key + ".origin", text, why);
}

std::optional<BinaryOrigin> find_binary_origin(const std::string& dir,
                                               const std::vector<std::vector<unsigned char>>& binaries,
                                               std::string* why) {
  std::optional<BinaryOrigin> found;
  if (binaries.empty()) {
    *why = "no binary";
    return std::nullopt;
  }
  for (const auto& bin : binaries) {
    std::string key = sha256_hex(bin.data(), bin.size());
    std::string path = dir + "/" + key + ".origin";
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      *why = "a binary libsplit did not hand out (no " + path + ")";
      return std::nullopt;
    }
    std::stringstream all;
    all << in.rdbuf();
    std::string text = all.str();
    std::istringstream head(text);
    std::string magic, key_line;
    size_t size = 0, options_len = 0, source_len = 0;
    std::getline(head, magic);
    std::getline(head, key_line);
    head >> size >> options_len >> source_len;
    size_t body = text.find('\n', text.find('\n', text.find('\n') + 1) + 1);
    if (magic != kMagic || key_line != key || !head || size != bin.size() ||
        body == std::string::npos || text.size() - body - 1 != options_len + source_len) {
      *why = "unreadable binary origin " + path;
      return std::nullopt;
    }
    BinaryOrigin o{text.substr(body + 1 + options_len, source_len), text.substr(body + 1, options_len)};
    if (found && (found->source != o.source || found->options != o.options)) {
      *why = "the binaries of the program come from different sources";
      return std::nullopt;
    }
    found = std::move(o);
  }
  return found;
}

}  // namespace libsplit
