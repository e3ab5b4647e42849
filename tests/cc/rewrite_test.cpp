// The partition-ready rewrite as text: parameter lists, call sites, macros,
// untouched functions, line numbers, and what it refuses.
#include "test_util.h"

#include "Compiler.h"

#include <gtest/gtest.h>

using namespace libsplit;

namespace {

cc::CompileResult compile(const std::string& source, std::vector<std::string> options = {},
                          const std::string& path = "prog.cl") {
  cc::CompileRequest req;
  req.inputPath = path;
  req.source = source;
  req.buildOptions = std::move(options);
  req.useCache = false;
  return cc::compileProgram(req);
}

// The user part of a partition-ready program (after the #line directive).
std::string body(const std::string& ready) {
  size_t p = ready.find("#line 1 ");
  return p == std::string::npos ? "" : ready.substr(ready.find('\n', p) + 1);
}

TEST(Rewrite, KernelsWithoutParametersGetTheCtx) {
  auto r = compile(
      "__kernel void a(void) {}\n__kernel void b() {}\n__kernel void c( void ) {}\n");
  ASSERT_TRUE(r.ok) << r.error << r.diagnostics;
  EXPECT_EQ(body(r.partitionReady),
            "__kernel void a(ulong4 __libsplit_ctx) {}\n__kernel void b(ulong4 __libsplit_ctx) "
            "{}\n__kernel void c(ulong4 __libsplit_ctx) {}\n");
}

TEST(Rewrite, OnlyFunctionsReachingTheBuiltinsChange) {
  const std::string src =
      "int pure(int x) { return x + 1; }\n"
      "int grp(void);\n"
      "int grp(void) { return (int)get_group_id(0); }\n"
      "int mid(int v) { return pure(v) + grp(); }\n"
      "__kernel void k(__global int* o) { o[get_global_id(0)] = mid(pure(2)); }\n";
  auto r = compile(src);
  ASSERT_TRUE(r.ok) << r.error << r.diagnostics;
  EXPECT_EQ(body(r.partitionReady),
            "int pure(int x) { return x + 1; }\n"
            "int grp(ulong4 __libsplit_ctx);\n"
            "int grp(ulong4 __libsplit_ctx) { return (int)get_group_id(0); }\n"
            "int mid(int v, ulong4 __libsplit_ctx) { return pure(v) + grp(__libsplit_ctx); }\n"
            "__kernel void k(__global int* o, ulong4 __libsplit_ctx) { o[get_global_id(0)] = "
            "mid(pure(2), __libsplit_ctx); }\n");
}

TEST(Rewrite, CallsWrittenInsideMacrosAreRewrittenOnce) {
  const std::string src =
      "int h(int v) { return v + (int)get_num_groups(0); }\n"
      "#define CALL(x) h(x)\n"
      "#define WRAP(e) ((e) * 2)\n"
      "__kernel void k(__global int* o) { o[0] = CALL(1) + CALL(2) + WRAP(h(3)); }\n";
  auto r = compile(src);
  ASSERT_TRUE(r.ok) << r.error << r.diagnostics;
  EXPECT_NE(body(r.partitionReady).find("#define CALL(x) h(x, __libsplit_ctx)\n"),
            std::string::npos)
      << r.partitionReady;
  EXPECT_NE(body(r.partitionReady).find("WRAP(h(3, __libsplit_ctx))"), std::string::npos);
}

TEST(Rewrite, LineNumbersAreKept) {
  const std::string src =
      "// comment\n\nint g(void) {\n  return (int)get_global_size(0);\n}\n\n"
      "__kernel void k(__global int* o) {\n  o[0] = g();\n}\n";
  auto r = compile(src);
  ASSERT_TRUE(r.ok) << r.error << r.diagnostics;
  std::string b = body(r.partitionReady);
  EXPECT_EQ(std::count(b.begin(), b.end(), '\n'), std::count(src.begin(), src.end(), '\n'));
}

TEST(Rewrite, UserHeadersNeedingTheCtxAreInlined) {
  std::string dir = cctest::makeTempDir();
  cctest::writeFile(dir + "/helper.h", "int grp(void) { return (int)get_group_id(0); }");
  cctest::writeFile(dir + "/pure.h", "int twice(int v) { return 2 * v; }\n");
  auto r = compile(
      "#include \"pure.h\"\n#include \"helper.h\"\n"
      "__kernel void k(__global int* o) {\n  o[0] = twice(grp());\n}\n",
      {"-I" + dir});
  ASSERT_TRUE(r.ok) << r.error << r.diagnostics;
  // The header needing no ctx stays an #include; the other is inlined
  // between #line directives that keep every line's file and number.
  EXPECT_EQ(body(r.partitionReady),
            "#include \"pure.h\"\n#line 1 \"" + dir + "/helper.h\"\n"
            "int grp(ulong4 __libsplit_ctx) { return (int)get_group_id(0); }\n"
            "#line 3 \"prog.cl\"\n"
            "__kernel void k(__global int* o, ulong4 __libsplit_ctx) {\n"
            "  o[0] = twice(grp(__libsplit_ctx));\n}\n");
  // A header included by a header is not rewritten: refused with its name.
  cctest::writeFile(dir + "/outer.h", "#include \"helper.h\"\n");
  r = compile("#include \"outer.h\"\n__kernel void k(__global int* o) { o[0] = grp(); }\n",
              {"-I", dir});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("helper.h"), std::string::npos) << r.error;
  std::filesystem::remove_all(dir);
}

TEST(Rewrite, SignaturesFromMacrosAreRewrittenOrRefusedNeverMiscompiled) {
  // The parameter list is written in the macro body: rewriting the #define
  // is right when every function it declares needs the ctx...
  auto r = compile(
      "#define GETTER(name, d) int name(void) { return (int)get_group_id(d); }\n"
      "GETTER(gx, 0)\nGETTER(gy, 1)\n"
      "__kernel void k(__global int* o) { o[0] = gx() + gy(); }\n");
  ASSERT_TRUE(r.ok) << r.error << r.diagnostics;
  EXPECT_NE(r.partitionReady.find("int name(ulong4 __libsplit_ctx)"), std::string::npos);
  // ...and wrong when one of them does not: the verify step refuses it.
  r = compile(
      "#define FN(name, body) int name(void) { return body; }\n"
      "FN(grp, (int)get_group_id(0))\nFN(seven, 7)\n"
      "int use_seven(void) { return seven(); }\n"
      "__kernel void k(__global int* o) { o[0] = grp() + use_seven(); }\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("does not compile"), std::string::npos) << r.error;
}

TEST(Rewrite, ProgramWithoutKernelsIsFine) {
  auto r = compile("int f(int x) { return x; }\n");
  ASSERT_TRUE(r.ok) << r.error << r.diagnostics;
  EXPECT_TRUE(r.summary.kernels.empty());
}

}  // namespace
