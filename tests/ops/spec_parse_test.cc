// The op spec syntax (ops/op_def.h): what it accepts, what it builds and
// the errors it gives for malformed rows.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "ops/op_def.h"
#include "base/arena.h"
#include "base/dtype.h"
#include "base/status.h"
}

#include "tests/ops/infer_helper.h"

namespace {

class SpecParse : public ::testing::Test {
 protected:
  void SetUp() override { arena_ = grt_arena_new(); }
  void TearDown() override { grt_arena_free(arena_); }

  grt_status* Parse(const char* inputs, const char* outputs, const char* attrs,
                    const char* name = "TestOp") {
    grt_op_spec spec = {name, inputs, outputs, attrs, GRT_OP_STATEFUL, nullptr};
    return grt_op_spec_parse(&spec, arena_, &def_);
  }
  const grt_attr_def* A(const char* name) { return grt_op_find_attr(&def_, name); }

  grt_arena* arena_ = nullptr;
  grt_op_def def_;
};

TEST_F(SpecParse, ArgsOfEveryForm) {
  grt_test::Status s(Parse("a: T, b: int32, c: N * T, d: Ref(T), e: M * float32",
                           "out: Ref(float32), many: N * T", "T: type; N: int >= 1; M: int = 2"));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_STREQ(def_.name, "TestOp");
  EXPECT_EQ(def_.flags, (uint32_t)GRT_OP_STATEFUL);
  ASSERT_EQ(def_.n_inputs, 5);
  EXPECT_STREQ(def_.inputs[0].name, "a");
  EXPECT_STREQ(def_.inputs[0].type_attr, "T");
  EXPECT_EQ(def_.inputs[0].type, GRT_DTYPE_INVALID);
  EXPECT_EQ(def_.inputs[1].type, GRT_INT32);
  EXPECT_EQ(def_.inputs[1].type_attr, nullptr);
  EXPECT_STREQ(def_.inputs[2].number_attr, "N");
  EXPECT_STREQ(def_.inputs[2].type_attr, "T");
  EXPECT_TRUE(def_.inputs[3].is_ref);
  EXPECT_FALSE(def_.inputs[0].is_ref);
  EXPECT_STREQ(def_.inputs[4].number_attr, "M");
  EXPECT_EQ(def_.inputs[4].type, GRT_FLOAT32);
  ASSERT_EQ(def_.n_outputs, 2);
  EXPECT_TRUE(def_.outputs[0].is_ref);
  EXPECT_EQ(def_.outputs[0].type, GRT_FLOAT32);
  EXPECT_STREQ(def_.outputs[1].number_attr, "N");
  ASSERT_EQ(def_.n_attrs, 3);
  EXPECT_TRUE(A("N")->has_minimum);
  EXPECT_EQ(A("N")->minimum, 1);
  EXPECT_EQ(A("M")->default_value.u.i, 2);
}

TEST_F(SpecParse, EmptySectionsAndWhitespace) {
  grt_test::Status s(Parse("", nullptr, "  "));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_EQ(def_.n_inputs, 0);
  EXPECT_EQ(def_.n_outputs, 0);
  EXPECT_EQ(def_.n_attrs, 0);
  grt_test::Status s2(Parse("  x :  T  ,\n y:T, ", "z: T", " T :  type ; "));
  ASSERT_TRUE(s2.ok()) << s2.msg();
  EXPECT_EQ(def_.n_inputs, 2);
  EXPECT_STREQ(def_.inputs[1].name, "y");
}

TEST_F(SpecParse, DefaultsOfEveryKind) {
  grt_test::Status s(Parse(
      "", "",
      "i: int = -3; f: float = -1.5; b: bool = true; s: string = 'NHWC'; e: string = '';"
      "t: {float32, float64} = float64; sh: shape = [2, -1]; su: shape = unknown; sc: shape = [];"
      "li: list(int) >= 1 = [1, 2, 3]; le: list(int) = []; lf: list(float) = [0.5, 2];"
      "lb: list(bool) = [true, false]; ls: list(string) = ['a', 'bc'];"
      "lt: list(type) = [int32, bool]; lsh: list(shape) = [[1], unknown, []];"
      "v: tensor; lv: list(tensor)"));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_EQ(A("i")->default_value.u.i, -3);
  EXPECT_FLOAT_EQ(A("f")->default_value.u.f, -1.5f);
  EXPECT_TRUE(A("b")->default_value.u.b);
  EXPECT_STREQ(A("s")->default_value.u.s, "NHWC");
  EXPECT_STREQ(A("e")->default_value.u.s, "");
  EXPECT_EQ(A("t")->type, GRT_ATTR_TYPE);
  EXPECT_EQ(A("t")->allowed_types, grt_dtype_bit(GRT_FLOAT32) | grt_dtype_bit(GRT_FLOAT64));
  EXPECT_EQ(A("t")->default_value.u.t, GRT_FLOAT64);
  EXPECT_EQ(grt_test::Str(A("sh")->default_value.u.shape), "[2,?]");
  EXPECT_EQ(A("su")->default_value.u.shape.rank, -1);
  EXPECT_EQ(A("sc")->default_value.u.shape.rank, 0);
  const grt_attr_value& li = A("li")->default_value;
  EXPECT_EQ(li.type, GRT_ATTR_LIST_INT);
  ASSERT_EQ(li.u.list.n, 3);
  EXPECT_EQ(li.u.list.v.i[2], 3);
  EXPECT_EQ(A("le")->default_value.u.list.n, 0);
  ASSERT_EQ(A("lf")->default_value.u.list.n, 2);
  EXPECT_FLOAT_EQ(A("lf")->default_value.u.list.v.f[1], 2.0f);
  ASSERT_EQ(A("lb")->default_value.u.list.n, 2);
  EXPECT_FALSE(A("lb")->default_value.u.list.v.b[1]);
  ASSERT_EQ(A("ls")->default_value.u.list.n, 2);
  EXPECT_STREQ(A("ls")->default_value.u.list.v.s[1], "bc");
  ASSERT_EQ(A("lt")->default_value.u.list.n, 2);
  EXPECT_EQ(A("lt")->default_value.u.list.v.t[1], GRT_BOOL);
  ASSERT_EQ(A("lsh")->default_value.u.list.n, 3);
  EXPECT_EQ(grt_test::Str(A("lsh")->default_value.u.list.v.shape[0]), "[1]");
  EXPECT_EQ(A("lsh")->default_value.u.list.v.shape[1].rank, -1);
  EXPECT_EQ(A("lsh")->default_value.u.list.v.shape[2].rank, 0);
  EXPECT_EQ(A("v")->type, GRT_ATTR_TENSOR);
  EXPECT_FALSE(A("v")->has_default);
  EXPECT_EQ(A("lv")->type, GRT_ATTR_LIST_TENSOR);
}

struct BadSpec {
  const char* inputs;
  const char* outputs;
  const char* attrs;
  const char* expect;  // part of the message
};

TEST_F(SpecParse, RejectsMalformedSpecs) {
  const BadSpec cases[] = {
      {"a T", "", "T: type", "expected ':' after arg 'a'"},
      {"a: T", "", "", "neither a dtype nor an attr"},
      {"a: N * T", "", "T: type; N: bool", "list length attr 'N' is bool, not int"},
      {"a: X * T", "", "T: type", "list length must name an int attr"},
      {"a: N", "", "N: int", "which is int, not type"},
      {"a: Ref(T", "", "T: type", "expected ')' closing Ref("},
      {"a: T, a: T", "", "T: type", "arg 'a' declared twice"},
      {"a: T junk", "", "T: type", "unexpected text in arg 'a'"},
      {"a: T,, b: T", "", "T: type", "empty entry"},
      {"1a: T", "", "T: type", "expected an arg name"},
      {"", "", "T: typ", "unknown attr kind 'typ'"},
      {"", "", "T type", "expected ':' after attr 'T'"},
      {"", "", "T: type; T: int", "attr 'T' declared twice"},
      {"", "", "T: {float32, nope}", "expected a dtype name in a type set"},
      {"", "", "T: {float32, float32}", "repeated in a type set"},
      {"", "", "T: {float32 int32}", "expected ',' or '}'"},
      {"", "", "T: {float32, float64} = int32", "not in the allowed set"},
      {"", "", "T: type = float99", "expected a dtype name"},
      {"", "", "b: bool >= 1", "a minimum needs an int or list attr"},
      {"", "", "N: int >= 2 = 1", "below the minimum"},
      {"", "", "l: list(int) >= 2 = [1]", "below the minimum"},
      {"", "", "N: int = x", "expected an integer"},
      {"", "", "N: int = 99999999999999999999", "out of range"},
      {"", "", "f: float = abc", "expected a number"},
      {"", "", "b: bool = yes", "expected true or false"},
      {"", "", "s: string = 'abc", "unterminated string"},
      {"", "", "s: string = abc", "expected a 'quoted' string"},
      {"", "", "sh: shape = [1, 2", "expected ',' or ']' in a shape"},
      {"", "", "sh: shape = [1, -2]", "below -1"},
      {"", "", "sh: shape = [1,1,1,1,1,1,1,1,1]", "more than 8 dimensions"},
      {"", "", "sh: shape = whatever", "expected a shape"},
      {"", "", "v: tensor = 1", "cannot have a default"},
      {"", "", "l: list(tensor) = []", "cannot have a default"},
      {"", "", "l: list(int = [1]", "expected ')' closing list("},
      {"", "", "l: list(int) = [1, 2", "expected ',' or ']' in a list"},
      {"", "", "l: list(int) = 1", "expected a list"},
      {"", "", "N: int = 1 2", "unexpected text after the default value"},
      {"", "", "N: int junk", "unexpected text in attr 'N'"},
  };
  for (const BadSpec& c : cases) {
    grt_test::Status s(Parse(c.inputs, c.outputs, c.attrs));
    EXPECT_EQ(s.code(), GRT_INVALID_ARGUMENT) << c.attrs << " | " << c.inputs;
    EXPECT_NE(s.msg().find(c.expect), std::string::npos)
        << "spec inputs='" << c.inputs << "' attrs='" << c.attrs << "' gave: " << s.msg();
    EXPECT_NE(s.msg().find("TestOp"), std::string::npos) << s.msg();
  }
}

TEST_F(SpecParse, ErrorsNameSectionAndOffset) {
  grt_test::Status s(Parse("a: T", "", "T: type; N: int = oops"));
  EXPECT_EQ(s.code(), GRT_INVALID_ARGUMENT);
  EXPECT_NE(s.msg().find("op spec 'TestOp', attrs at offset 18"), std::string::npos) << s.msg();
  grt_test::Status s2(Parse("", "x: T, y: Q", "T: type"));
  EXPECT_NE(s2.msg().find("outputs at offset 9"), std::string::npos) << s2.msg();
}

TEST_F(SpecParse, RejectsBadOpNames) {
  for (const char* name : {"", "1Op", "Op Name", "Op-x"}) {
    grt_test::Status s(Parse("", "", "", name));
    EXPECT_EQ(s.code(), GRT_INVALID_ARGUMENT) << name;
    EXPECT_NE(s.msg().find("op name must be an identifier"), std::string::npos) << s.msg();
  }
  grt_test::Status s(Parse("", "", "", nullptr));
  EXPECT_EQ(s.code(), GRT_INVALID_ARGUMENT);
  grt_test::Status s2(grt_op_spec_parse(nullptr, arena_, &def_));
  EXPECT_EQ(s2.code(), GRT_INVALID_ARGUMENT);
}

}  // namespace
