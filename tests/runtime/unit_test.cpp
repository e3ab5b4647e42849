// Unit tests of the shim's pure pieces: interval sets, the device-set syntax,
// the controls table, the capture of program sources, binary origins, the
// combination of reduction buffers' private copies.
#include "binary_origins.h"
#include "controls.h"
#include "device_binary_file.h"
#include "device_set.h"
#include "interval_set.h"
#include "program_source.h"
#include "reduction.h"
#include "unit_merge.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

using namespace libsplit;

TEST(IntervalSet, AddMergesAdjacentAndOverlapping) {
  IntervalSet s;
  s.add({10, 20});
  s.add({30, 40});
  s.add({20, 25});
  EXPECT_EQ(s.ranges().vector(), (std::vector<Range>{{10, 25}, {30, 40}}));
  s.add({5, 35});
  EXPECT_EQ(s.ranges().vector(), (std::vector<Range>{{5, 40}}));
  s.add({50, 50});  // empty
  EXPECT_EQ(s.total(), 35u);
}

TEST(IntervalSet, RemoveSplits) {
  IntervalSet s;
  s.add({0, 100});
  s.remove({10, 20});
  s.remove({90, 200});
  EXPECT_EQ(s.ranges().vector(), (std::vector<Range>{{0, 10}, {20, 90}}));
  EXPECT_TRUE(s.covers({20, 90}));
  EXPECT_FALSE(s.covers({5, 15}));
  EXPECT_EQ(s.missing({5, 25}), (std::vector<Range>{{10, 20}}));
  EXPECT_EQ(s.present({5, 25}), (std::vector<Range>{{5, 10}, {20, 25}}));
}

// A universe of 12 bytes keeps the set at zero to two ranges most of the
// time (its inline range and the moves between it and the map); 300 bytes
// gives many ranges. ranges() must give the bitmap's runs exactly.
TEST(IntervalSet, MatchesABitmapUnderRandomOperations) {
  for (uint64_t n : {12, 300}) {
    std::mt19937 rng(7);
    IntervalSet s;
    std::vector<bool> bits(n, false);
    for (int step = 0; step < 2000; ++step) {
      uint64_t a = rng() % n, b = rng() % n;
      if (a > b) std::swap(a, b);
      bool add = rng() % 2;
      if (add) s.add({a, b});
      else s.remove({a, b});
      for (uint64_t i = a; i < b; ++i) bits[i] = add;
      uint64_t qa = rng() % n, qb = rng() % n;
      if (qa > qb) std::swap(qa, qb);
      bool all = true;
      uint64_t count = 0;
      for (uint64_t i = qa; i < qb; ++i) all &= bits[i];
      for (bool bit : bits) count += bit;
      ASSERT_EQ(s.covers({qa, qb}), all);
      ASSERT_EQ(s.total(), count);
      ASSERT_EQ(s.empty(), count == 0);
      uint64_t missing = 0;
      for (auto& r : s.missing({qa, qb})) {
        for (uint64_t i = r.begin; i < r.end; ++i) ASSERT_FALSE(bits[i]);
        missing += r.size();
      }
      uint64_t present = 0;
      for (auto& r : s.present({qa, qb})) {
        for (uint64_t i = r.begin; i < r.end; ++i) ASSERT_TRUE(bits[i]);
        present += r.size();
      }
      ASSERT_EQ(missing + present, qb - qa);
      std::vector<Range> runs;
      for (uint64_t i = 0; i < n; ++i)
        if (bits[i]) {
          if (!runs.empty() && runs.back().end == i) ++runs.back().end;
          else runs.push_back({i, i + 1});
        }
      ASSERT_EQ(s.ranges().vector(), runs) << "n " << n << " step " << step;
      ASSERT_EQ(s.ranges().size(), runs.size());
    }
  }
}

namespace {
std::vector<DeviceDesc> node() {
  return {{0, 0, "pthread-cpu", false, true, false},
          {0, 1, "basic-cpu", false, true, false},
          {1, 0, "NVIDIA H100", true, false, false},
          {1, 1, "NVIDIA A100", true, false, false}};
}
}  // namespace

TEST(DeviceSet, DefaultIsEverything) {
  auto s = select_devices("", node());
  EXPECT_TRUE(s.error.empty());
  EXPECT_EQ(s.chosen, (std::vector<unsigned>{0, 1, 2, 3}));
}

TEST(DeviceSet, PlatformDeviceTerms) {
  EXPECT_EQ(select_devices("0:0,1:*", node()).chosen, (std::vector<unsigned>{0, 2, 3}));
  EXPECT_EQ(select_devices("*:1", node()).chosen, (std::vector<unsigned>{1, 3}));
  EXPECT_EQ(select_devices("1:1, 0:1", node()).chosen, (std::vector<unsigned>{1, 3}));
  EXPECT_TRUE(select_devices("2:0", node()).chosen.empty());
}

TEST(DeviceSet, TypeAndNameTerms) {
  EXPECT_EQ(select_devices("type:gpu", node()).chosen, (std::vector<unsigned>{2, 3}));
  EXPECT_EQ(select_devices("type:cpu", node()).chosen, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(select_devices("name:h100,name:BASIC", node()).chosen, (std::vector<unsigned>{1, 2}));
  auto s = select_devices("type:gpu", node());
  EXPECT_NE(s.reasons[2].find("type:gpu"), std::string::npos);
  EXPECT_NE(s.reasons[0].find("not chosen"), std::string::npos);
}

TEST(DeviceSet, MalformedSpecsChooseNothing) {
  for (const char* bad : {"x", "type:fpga", "0:a", "a:0", ":"}) {
    auto s = select_devices(bad, node());
    EXPECT_FALSE(s.error.empty()) << bad;
    EXPECT_TRUE(s.chosen.empty()) << bad;
  }
}

namespace {
std::map<std::string, std::string> g_env;
const char* fake_getenv(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}
}  // namespace

TEST(Controls, DefaultsAndParsing) {
  g_env.clear();
  Controls d = read_controls(fake_getenv);
  EXPECT_FALSE(d.disable);
  EXPECT_EQ(d.log, 0);
  EXPECT_TRUE(d.plain_split);
  g_env = {{"LIBSPLIT_DISABLE", "1"}, {"LIBSPLIT_LOG", "2"}, {"LIBSPLIT_DEVICES", "type:gpu"},
           {"LIBSPLIT_PLAIN_SPLIT", "off"}};
  Controls c = read_controls(fake_getenv);
  EXPECT_TRUE(c.disable);
  EXPECT_EQ(c.log, 2);
  EXPECT_EQ(c.devices, "type:gpu");
  EXPECT_FALSE(c.plain_split);
}

TEST(Controls, MalformedValuesKeepDefaultsAndWarn) {
  g_env = {{"LIBSPLIT_LOG", "lots"}, {"LIBSPLIT_DISABLE", "maybe"}};
  std::string warnings;
  Controls c = read_controls(fake_getenv, &warnings);
  EXPECT_EQ(c.log, 0);
  EXPECT_FALSE(c.disable);
  EXPECT_NE(warnings.find("LIBSPLIT_LOG"), std::string::npos);
  EXPECT_NE(warnings.find("LIBSPLIT_DISABLE"), std::string::npos);
}

TEST(Controls, DocumentationNamesEveryControl) {
  std::string doc = controls_documentation();
  for (const char* name : {"LIBSPLIT_DEVICES", "LIBSPLIT_DISABLE", "LIBSPLIT_SCHEDULER",
                           "LIBSPLIT_PROPORTIONS", "LIBSPLIT_LOG", "LIBSPLIT_TRACE",
                           "LIBSPLIT_TIMELINE", "LIBSPLIT_CC", "LIBSPLIT_CACHE_DIR",
                           "LIBSPLIT_WARMSTART"})
    EXPECT_NE(doc.find(name), std::string::npos) << name;
}

// ---- binary origins (binary_origins.h) ----

TEST(BinaryOrigins, Sha256MatchesTheStandardVectors) {
  auto sha = [](const std::string& s) {
    return sha256_hex(reinterpret_cast<const unsigned char*>(s.data()), s.size());
  };
  EXPECT_EQ(sha(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first padding block.
  EXPECT_EQ(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(BinaryOrigins, RecordedBinariesFindTheirSourceAndOthersSayWhy) {
  char templ[] = "/tmp/libsplit-origins-XXXXXX";
  ASSERT_NE(mkdtemp(templ), nullptr);
  const std::string dir = std::string(templ) + "/cache/binaries";
  const std::vector<unsigned char> bin_a = {1, 2, 3, 4}, bin_b = {9, 9}, other = {7};
  std::string why;
  ASSERT_TRUE(record_binary_origin(dir, bin_a.data(), bin_a.size(), {"kernel A", "-DX=1"}, &why)) << why;
  ASSERT_TRUE(record_binary_origin(dir, bin_b.data(), bin_b.size(), {"kernel B", ""}, &why)) << why;
  auto found = find_binary_origin(dir, {bin_a}, &why);
  ASSERT_TRUE(found) << why;
  EXPECT_EQ(found->source, "kernel A");
  EXPECT_EQ(found->options, "-DX=1");
  EXPECT_FALSE(find_binary_origin(dir, {other}, &why));
  EXPECT_NE(why.find("a binary libsplit did not hand out"), std::string::npos) << why;
  EXPECT_FALSE(find_binary_origin(dir, {bin_a, bin_b}, &why));
  EXPECT_NE(why.find("different sources"), std::string::npos) << why;
  // A damaged entry is not trusted.
  const std::string entry = dir + "/" + sha256_hex(bin_a.data(), bin_a.size()) + ".origin";
  { std::ofstream(entry, std::ios::app) << "extra"; }
  EXPECT_FALSE(find_binary_origin(dir, {bin_a}, &why));
  EXPECT_NE(why.find("unreadable"), std::string::npos) << why;
  // Private: directory 0700, entries 0600.
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(entry.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::filesystem::remove_all(templ);
}

// ---- program_source: what a build read, captured as one text ----

TEST(ProgramSource, EmbeddedHeadersInlinedRecursivelyPragmaOnceOnce) {
  std::vector<EmbeddedHeader> headers = {
      {"defs.h", "#pragma once\nint twice(int x);\n"},
      {"ops/math.h", "#include \"defs.h\"\nint thrice(int x);\n"}};
  std::string out = inline_includes(
      "#include \"ops/math.h\"\n  #  include \"defs.h\"\n#include <unknown_system.h>\nkernel void k() {}\n", "",
      headers);
  EXPECT_EQ(out, "int twice(int x);\nint thrice(int x);\n#include <unknown_system.h>\nkernel void k() {}\n");
}

TEST(ProgramSource, IncludeDirectoriesReadAtCaptureTime) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ls_inc_" + std::to_string(getpid()));
  fs::create_directories(dir / "sub");
  auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  write(dir / "a.h", "#ifndef A_H\n#define A_H\n#include \"sub/b.h\"\n#endif\n");
  write(dir / "sub" / "b.h", "#include \"c.h\"\n#define B 2\n");  // c.h next to b.h
  write(dir / "sub" / "c.h", "#define C 3\n");
  std::string out = inline_includes("#include \"a.h\"\n#include <a.h>\nint x = B + C;\n",
                                    "-DX=1 -I " + dir.string() + " -cl-std=CL1.2", {});
  fs::remove_all(dir);
  // Include guards stay (the second inclusion is inlined and skipped by them).
  const std::string a = "#ifndef A_H\n#define A_H\n#define C 3\n#define B 2\n#endif\n";
  EXPECT_EQ(out, a + a + "int x = B + C;\n");
}

TEST(ProgramSource, SingleSourceScopesEachUnitsMacros) {
  std::string options = "-cl-fast-relaxed-math";
  std::string out = single_source(
      {{"#define LOCAL 1\nint f(void) { return LOCAL + BIAS; }\n", "-DBIAS=3 -cl-std=CL1.2"},
       {"int g(void) { return 2; }\n", "-UBIAS -I /gone -cl-std=CL1.2"}},
      &options);
  EXPECT_EQ(out,
            "#define BIAS 3\n#define LOCAL 1\nint f(void) { return LOCAL + BIAS; }\n\n"
            "#undef BIAS\n#undef LOCAL\n"
            "#undef BIAS\nint g(void) { return 2; }\n\n");
  EXPECT_EQ(options, "-cl-fast-relaxed-math -cl-std=CL1.2");
  // Macros of an include-guarded header stay defined with their guard.
  std::string header = "#ifndef H\n#define H\n#define SCALE 3\n#if 1\n#define INNER 1\n#endif\n#endif\n#define AFTER 2\n";
  options.clear();
  EXPECT_EQ(single_source({{header, ""}}, &options), header + "\n#undef AFTER\n");
  EXPECT_EQ(link_options_for_build("-create-library -enable-link-options -cl-no-signed-zeros"),
            "-cl-no-signed-zeros");
}

namespace {

// What one device's atomic update does to its copy of an element.
template <typename U>
U apply_update(const std::string& op, U old, U v) {
  using S = std::make_signed_t<U>;
  if (op == "add") return U(old + v);
  if (op == "sub") return U(old - v);
  if (op == "inc") return U(old + 1);
  if (op == "dec") return U(old - 1);
  if (op == "and") return old & v;
  if (op == "or") return old | v;
  if (op == "xor") return old ^ v;
  if (op == "min") return U(std::min(S(old), S(v)));
  if (op == "max") return U(std::max(S(old), S(v)));
  if (op == "umin") return std::min(old, v);
  return std::max(old, v);  // umax
}

ReductionOp recorded_as(const std::string& op) {
  if (op == "sub" || op == "inc" || op == "dec") return ReductionOp::Add;
  return *parse_reduction_op(op);
}

// Updates spread over `devices` private copies (the first starting from the
// contents, the others from the identity), then combined, equal the same
// updates applied in order to one buffer.
template <typename U>
void check_split_equals_whole(const std::string& op, unsigned devices, std::mt19937_64& rng) {
  constexpr unsigned kBits = sizeof(U) * 8;
  constexpr size_t kElems = 8;
  const ReductionOp kind = recorded_as(op);
  std::vector<U> whole(kElems);
  for (U& e : whole) e = U(rng());
  std::vector<std::vector<U>> copies(devices, whole);
  const std::vector<uint8_t> identity = reduction_identity(kind, kBits);
  ASSERT_EQ(identity.size(), sizeof(U));
  for (unsigned d = 1; d < devices; ++d)
    for (U& e : copies[d]) std::memcpy(&e, identity.data(), sizeof(U));
  for (int i = 0; i < 2000; ++i) {
    size_t at = rng() % kElems;
    U v = U(rng() >> (rng() % 64));  // small and large values, both signs
    whole[at] = apply_update(op, whole[at], v);
    U& c = copies[rng() % devices][at];
    c = apply_update(op, c, v);
  }
  std::vector<U> combined = copies[0];
  for (unsigned d = 1; d < devices; ++d)
    combine_reduction(kind, kBits, reinterpret_cast<uint8_t*>(combined.data()),
                      reinterpret_cast<const uint8_t*>(copies[d].data()), kElems * sizeof(U));
  EXPECT_EQ(combined, whole) << op << " " << kBits << "-bit over " << devices << " devices";
}

}  // namespace

TEST(Reduction, PrivateCopiesCombineToTheOneBufferResult) {
  std::mt19937_64 rng(42);
  for (const char* op : {"add", "sub", "inc", "dec", "and", "or", "xor", "min", "max", "umin", "umax"})
    for (unsigned devices : {2u, 3u, 5u}) {
      check_split_equals_whole<uint32_t>(op, devices, rng);
      check_split_equals_whole<uint64_t>(op, devices, rng);
    }
}

TEST(Reduction, IdentitiesAndPartialElements) {
  auto as32 = [](ReductionOp op) {
    uint32_t v;
    std::memcpy(&v, reduction_identity(op, 32).data(), 4);
    return v;
  };
  EXPECT_EQ(as32(ReductionOp::Add), 0u);
  EXPECT_EQ(as32(ReductionOp::And), 0xffffffffu);
  EXPECT_EQ(as32(ReductionOp::Min), 0x7fffffffu);
  EXPECT_EQ(as32(ReductionOp::Max), 0x80000000u);
  EXPECT_EQ(as32(ReductionOp::UMin), 0xffffffffu);
  EXPECT_EQ(as32(ReductionOp::UMax), 0u);
  uint64_t v;
  std::memcpy(&v, reduction_identity(ReductionOp::Max, 64).data(), 8);
  EXPECT_EQ(v, uint64_t(1) << 63);
  // A trailing partial element is left as the first copy has it.
  uint8_t into[6] = {1, 0, 0, 0, 9, 9}, copy[6] = {2, 0, 0, 0, 5, 5};
  combine_reduction(ReductionOp::Add, 32, into, copy, sizeof into);
  EXPECT_EQ(into[0], 3);
  EXPECT_EQ(into[4], 9);
  EXPECT_EQ(into[5], 9);
}

TEST(Reduction, KernelsWithOtherAtomicsAreNotReductions) {
  KernelSummary k;
  ArgSummary in, acc;
  in.is_pointer = acc.is_pointer = true;
  in.address_space = acc.address_space = AddressSpace::Global;
  in.reads = true;
  acc.atomics = true;
  k.args = {in, acc};
  EXPECT_FALSE(atomics_are_reductions(k));
  k.args[1].reduction = ReductionOp::Xor;
  k.args[1].reduction_bits = 32;
  EXPECT_TRUE(atomics_are_reductions(k));
  k.args[1].reduction_bits = 16;  // no such reduction
  EXPECT_FALSE(atomics_are_reductions(k));
  // Local atomics do not count.
  k.args[1] = acc;
  k.args[1].address_space = AddressSpace::Local;
  EXPECT_TRUE(atomics_are_reductions(k));
}

namespace {

std::vector<uint8_t> words(std::initializer_list<uint32_t> w) {
  std::vector<uint8_t> out(w.size() * 4);
  std::memcpy(out.data(), std::data(w), out.size());
  return out;
}

}  // namespace

TEST(UnitMerge, TwoWritersOfOneElementNeverMix) {
  // Rodinia's myocyte: the later writer's float shares a byte with the
  // starting value, so a byte merge let the earlier writer's byte through.
  const auto snapshot = words({0x3F6C3E3E, 7});
  const auto first = words({0x40123456, 7}), second = words({0x416C1234, 7});
  for (unsigned unit : {4u, 8u}) {
    auto out = snapshot;
    UnitMerge merge(snapshot.data(), out.data(), out.size(), unit);
    merge.add(first.data());
    merge.add(second.data());
    EXPECT_EQ(out, second) << unit;
    EXPECT_EQ(merge.conflicts(), 1u);
  }
  auto bytes = snapshot;
  UnitMerge by_byte(snapshot.data(), bytes.data(), bytes.size(), 1);
  by_byte.add(first.data());
  by_byte.add(second.data());
  EXPECT_EQ(bytes, words({0x41121234, 7})) << "bytes merge as bytes: a value nobody wrote";
}

TEST(UnitMerge, NeighbouringWritesOfDifferentDevicesAreAllKept) {
  const auto snapshot = words({1, 2, 3, 4});
  const auto a = words({10, 2, 30, 4}), b = words({1, 20, 3, 40});
  auto out = snapshot;
  UnitMerge merge(snapshot.data(), out.data(), out.size(), 4);
  merge.add(a.data());
  merge.add(b.data());
  EXPECT_EQ(out, words({10, 20, 30, 40}));
  EXPECT_EQ(merge.conflicts(), 0u);
}

TEST(UnitMerge, EqualWritesAreNoConflictAndATrailingPartialUnitMergesByByte) {
  std::vector<uint8_t> snapshot = {0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5};
  std::vector<uint8_t> a = {1, 1, 1, 1, 0, 0, 0, 0, 6, 5, 5};
  std::vector<uint8_t> b = {1, 1, 1, 1, 0, 0, 0, 0, 5, 7, 5};
  auto out = snapshot;
  UnitMerge merge(snapshot.data(), out.data(), out.size(), 8);
  merge.add(a.data());
  merge.add(b.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 1, 1, 1, 0, 0, 0, 0, 6, 7, 5}));
  EXPECT_EQ(merge.conflicts(), 0u);
  EXPECT_EQ(alignment_of(24, 128), 8u);
  EXPECT_EQ(alignment_of(0, 128), 128u);
  EXPECT_EQ(alignment_of(1024, 128), 128u);
  EXPECT_EQ(UnitMerge(snapshot.data(), out.data(), 0, 12).unit(), 4u);
}

TEST(UnitMerge, MatchesElementWiseLastWriterWinsOnRandomCopies) {
  std::mt19937 rng(11);
  for (unsigned unit : {1u, 2u, 4u, 8u, 16u}) {
    const size_t elements = 257, bytes = elements * unit;
    std::vector<uint8_t> snapshot(bytes);
    for (auto& b : snapshot) b = uint8_t(rng());
    std::vector<std::vector<uint8_t>> copies(3, snapshot);
    std::vector<uint8_t> expected = snapshot;
    for (size_t e = 0; e < elements; ++e)
      for (auto& c : copies)
        if (rng() % 3 == 0) {
          for (unsigned k = 0; k < unit; ++k) c[e * unit + k] = uint8_t(rng());
          c[e * unit] = uint8_t(snapshot[e * unit] + 1);  // surely changed
        }
    for (const auto& c : copies)
      for (size_t e = 0; e < elements; ++e)
        if (std::memcmp(c.data() + e * unit, snapshot.data() + e * unit, unit) != 0)
          std::memcpy(expected.data() + e * unit, c.data() + e * unit, unit);
    auto out = snapshot;
    UnitMerge merge(snapshot.data(), out.data(), bytes, unit);
    for (const auto& c : copies) merge.add(c.data());
    EXPECT_EQ(out, expected) << unit;
  }
}

TEST(DeviceBinaryFile, EncodedBinariesDecodeOnlyUnderTheirKeyAndCount) {
  const DeviceBinaries bins = {{1, 2, 3}, {}, {'\n', 0, 255}};
  const std::string bytes = encode_device_binaries("k1", bins);
  EXPECT_EQ(decode_device_binaries(bytes, "k1", 3), bins);
  EXPECT_FALSE(decode_device_binaries(bytes, "k2", 3));
  EXPECT_FALSE(decode_device_binaries(bytes, "k1", 2));
  EXPECT_FALSE(decode_device_binaries(bytes.substr(0, bytes.size() - 1), "k1", 3)) << "truncated";
  EXPECT_FALSE(decode_device_binaries(bytes + "x", "k1", 3)) << "trailing bytes";
}

TEST(DeviceBinaryFile, KeyNamesSourceOptionsAndEveryDevice) {
  const std::vector<DeviceIdentity> a = {{"gpu", "1.0", "OpenCL 3.0"}}, b = {{"gpu", "1.1", "OpenCL 3.0"}};
  const std::string k = device_binary_key("src", "-O2", a);
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, device_binary_key("src", "-O2", a));
  EXPECT_NE(k, device_binary_key("src", "-O3", a));
  EXPECT_NE(k, device_binary_key("src2", "-O2", a));
  EXPECT_NE(k, device_binary_key("src", "-O2", b));
  EXPECT_TRUE(has_uncacheable_kernel_name("a;" + std::string(129, 'k') + ";b"));
  EXPECT_FALSE(has_uncacheable_kernel_name("a;" + std::string(128, 'k') + std::string(1, '\0') + "zzz"));
}
