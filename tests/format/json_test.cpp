#include "libsplit/json.h"

#include <gtest/gtest.h>

using libsplit::json::Value;
namespace json = libsplit::json;

namespace {

TEST(Json, ParsesEveryKindOfValue) {
  std::string err;
  auto v = json::parse(R"( {"a": [1, -2, 3.5e2, true, false, null], "s": "x\"\\\n\u00e9\ud83d\ude00",
                          "big": 18446744073709551615, "neg": -9223372036854775808, "o": {}} )",
                       &err);
  ASSERT_TRUE(v) << err;
  const auto* a = v->get("a")->as_array();
  ASSERT_EQ(a->size(), 6u);
  EXPECT_EQ((*a)[0].as_int64(), 1);
  EXPECT_EQ((*a)[1].as_int64(), -2);
  EXPECT_FALSE((*a)[1].as_uint64());
  EXPECT_EQ((*a)[2].as_double(), 350.0);
  EXPECT_FALSE((*a)[2].as_int64());
  EXPECT_EQ((*a)[3].as_bool(), true);
  EXPECT_EQ((*a)[4].as_bool(), false);
  EXPECT_TRUE((*a)[5].is_null());
  EXPECT_EQ(*v->get("s")->as_string(), "x\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v->get("big")->as_uint64(), UINT64_MAX);
  EXPECT_EQ(v->get("neg")->as_int64(), INT64_MIN);
  EXPECT_TRUE(v->get("o")->is_object());
  EXPECT_EQ(v->get("missing"), nullptr);
}

TEST(Json, WriteThenParseGivesTheSameValue) {
  Value v = Value::object();
  v.set("n", uint64_t(1) << 63);
  v.set("m", int64_t(-5));
  v.set("s", "tab\t ctl\x01 quote\" slash\\");
  v.set("list", Value::array({Value(1), Value("two"), Value::object({{"k", Value(true)}})}));
  v.set("empty", Value::array());
  for (int indent : {0, 2}) {
    std::string err;
    auto back = json::parse(json::write(v, indent), &err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(*back, v);
  }
  EXPECT_EQ(json::write(Value::array({Value(1), Value(2)}), 0), "[1,2]");
}

TEST(Json, MalformedTextIsAnErrorWithAPosition) {
  const char* bad[] = {"",          "{",           "[1,]",       "{\"a\" 1}",   "{\"a\":1,}",
                       "01",        "1.",          "-",          "\"abc",       "\"\\x\"",
                       "tru",       "[1] [2]",     "{\"a\":1,\"a\":2}", "\"\\ud800\"", "\"a\nb\"",
                       "{1:2}",     "nul"};
  for (const char* text : bad) {
    std::string err;
    EXPECT_FALSE(json::parse(text, &err)) << text;
    EXPECT_NE(err.find("line "), std::string::npos) << text << " -> " << err;
  }
  std::string err;
  EXPECT_FALSE(json::parse("{\n  \"a\": [1,\n   x]}", &err));
  EXPECT_EQ(err.rfind("line 3 col 4", 0), 0u) << err;
  std::string deep(1000, '[');
  EXPECT_FALSE(json::parse(deep + std::string(1000, ']'), &err));
  EXPECT_NE(err.find("deep"), std::string::npos);
}

TEST(Json, SetReplacesAndKeepsOrder) {
  Value v = Value::object();
  v.set("b", 1);
  v.set("a", 2);
  v.set("b", 3);
  EXPECT_EQ(json::write(v, 0), "{\"b\":3,\"a\":2}");
}

}  // namespace
