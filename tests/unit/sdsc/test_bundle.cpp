// bundle.mlir (docs/formats.md, "`bundle.mlir`"): the sdsc_filename of each sdsc_execute, in order.
// The texts are small hand-written bundles in the shape of torch-spyre's (tab-indented, arguments,
// symbol_ids).
#include "sdscprov/sdsc/bundle.hpp"
#include "temp_dir.hpp"

#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace sdscprov;
namespace fs = std::filesystem;

namespace {

using Files = std::vector<std::string>;

const std::string header = "module {\n"
                           "\tfunc.func @sdsc_bundle(%arg_0_base_addr: "
                           "!sdscbundle.input_arg<index>, %arg_1_base_addr: "
                           "!sdscbundle.input_arg<index>) {\n"
                           "\t\t%arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr "
                           ": !sdscbundle.input_arg<index> -> index\n"
                           "\t\t%arg_0_core_offset_2048 = arith.constant 2048 : index\n"
                           "\t\t%arg_0_core_2048 = arith.addi %arg_0, %arg_0_core_offset_2048 : "
                           "index\n"; // 5 lines
const std::string footer = "\t\treturn\n"
                           "\t}\n"
                           "}\n";

std::string bundle(const std::vector<std::string>& body) {
    std::string s = header;
    for (const auto& line : body) {
        s += line + "\n";
    }
    return s + footer;
}

std::string exec_args(const std::string& file) {
    return "\t\tsdscbundle.sdsc_execute (%arg_0, %arg_0_core_2048) {sdsc_filename=\"" + file +
           "\", \"symbol_ids\"=[-1, -2]}";
}

std::string exec(const std::string& file) {
    return "\t\tsdscbundle.sdsc_execute () {sdsc_filename=\"" + file + "\", \"symbol_ids\"=[]}";
}

} // namespace

TEST_CASE("bundle: the order of sdsc_execute lines") {
    struct Case {
        const char* what;
        std::string text;
        Files files;
    };
    const Case cases[] = {
        {"several lines, with arguments and symbol_ids",
         bundle({exec_args("sdsc_0.json"), exec("sdsc_1.json"), exec("sdsc_2.json"),
                 exec_args("sdsc_3.json")}),
         {"sdsc_0.json", "sdsc_1.json", "sdsc_2.json", "sdsc_3.json"}},
        {"not in numeric order",
         bundle({exec("sdsc_2.json"), exec("sdsc_0.json"), exec("sdsc_1.json")}),
         {"sdsc_2.json", "sdsc_0.json", "sdsc_1.json"}},
        {"the same file twice (de-duplication)",
         bundle({exec("sdsc_0.json"), exec("sdsc_1.json"), exec("sdsc_0.json")}),
         {"sdsc_0.json", "sdsc_1.json", "sdsc_0.json"}},
        {"the May 2026 naming",
         bundle({exec("sdsc_0_batchmatmul.json"), exec("sdsc_1_add.json")}),
         {"sdsc_0_batchmatmul.json", "sdsc_1_add.json"}},
        {"scf.for nesting, the body once and inline",
         bundle({"\t\t%c0 = arith.constant 0 : index", "\t\t%c1 = arith.constant 1 : index",
                 "\t\t%c4 = arith.constant 4 : index", exec("sdsc_0.json"),
                 "\t\tscf.for %i = %c0 to %c4 step %c1 {", "\t" + exec_args("sdsc_1.json"),
                 "\t" + exec("sdsc_2.json"), "\t\t\tscf.for %j = %c0 to %c4 step %c1 {",
                 "\t\t" + exec("sdsc_3.json"), "\t\t\t}", "\t\t}", exec("sdsc_4.json")}),
         {"sdsc_0.json", "sdsc_1.json", "sdsc_2.json", "sdsc_3.json", "sdsc_4.json"}},
        {"CRLF line ends",
         "module {\r\n" + exec("sdsc_0.json") + "\r\n" + exec("sdsc_1.json") + "\r\n}\r\n",
         {"sdsc_0.json", "sdsc_1.json"}},
        {"last line without a newline",
         exec("sdsc_0.json") + "\n" + exec("sdsc_1.json"),
         {"sdsc_0.json", "sdsc_1.json"}},
        {"no sdsc_execute at all", bundle({}), {}},
        {"empty text", "", {}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto r = parse_bundle("k/bundle.mlir", c.text);
        CHECK(r.problems.empty());
        REQUIRE(r.order.has_value());
        CHECK(r.order->files == c.files);
    }
}

TEST_CASE("bundle: unreadable sdsc_execute lines are problems at line:col") {
    struct Case {
        const char* what;
        std::string text;
        std::size_t line;
        std::size_t col;
        const char* message;
    };
    // header is 5 lines: the body starts at line 6. Tabs are one column each.
    // "\t\tsdscbundle.sdsc_execute () {": sdsc_filename at column 31.
    const Case cases[] = {
        {"a line without sdsc_filename",
         bundle({exec("sdsc_0.json"), "\t\tsdscbundle.sdsc_execute () {\"symbol_ids\"=[]}",
                 exec("sdsc_2.json")}),
         7, 3, "sdsc_execute without sdsc_filename"},
        {"an unterminated sdsc_filename",
         bundle({"\t\tsdscbundle.sdsc_execute () {sdsc_filename=\"sdsc_0.json"}), 6, 3,
         "sdsc_execute without sdsc_filename"},
        {"a filename with '/'", bundle({exec("sdsc_0.json"), exec("../sdsc_1.json")}), 7, 31,
         "sdsc_filename \"../sdsc_1.json\" is not a file name"},
        {"a filename with a directory", bundle({exec("execute/sdsc.json")}), 6, 31,
         "sdsc_filename \"execute/sdsc.json\" is not a file name"},
        {"an empty filename", bundle({exec("")}), 6, 31, "sdsc_filename \"\" is not a file name"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto r = parse_bundle("k/bundle.mlir", c.text);
        CHECK_FALSE(r.order.has_value());
        REQUIRE(r.problems.size() == 1);
        const Problem& p = r.problems[0];
        CHECK(p.path == "k/bundle.mlir");
        CHECK(p.code == ProblemCode::bad_bundle);
        CHECK(p.severity == Severity::error);
        CHECK(p.pos.line == c.line);
        CHECK(p.pos.col == c.col);
        CHECK(p.message.find(c.message) != std::string::npos);
    }
}

TEST_CASE("bundle: read_bundle") {
    test::TempDir temp("sdscprov-bundle");
    const fs::path& dir = temp.root;

    SUBCASE("a file") {
        const fs::path path = dir / "bundle.mlir";
        std::ofstream(path, std::ios::binary)
            << bundle({exec_args("sdsc_0.json"), exec("sdsc_1.json"), exec("sdsc_0.json")});
        auto r = read_bundle(path.string());
        CHECK(r.problems.empty());
        REQUIRE(r.order.has_value());
        CHECK(r.order->files == Files{"sdsc_0.json", "sdsc_1.json", "sdsc_0.json"});
    }
    SUBCASE("a missing file") {
        const std::string path = (dir / "missing" / "bundle.mlir").string();
        auto r = read_bundle(path);
        CHECK_FALSE(r.order.has_value());
        REQUIRE(r.problems.size() == 1);
        CHECK(r.problems[0].code == ProblemCode::io_error);
        CHECK(r.problems[0].path == path);
        CHECK(r.problems[0].pos.line == 0);
        CHECK(r.problems[0].message.find("cannot read") != std::string::npos);
    }
}

TEST_CASE("bundle: sdsc_filename is matched as a whole attribute name") {
    auto r = sdscprov::parse_bundle(
        "b.mlir", "\t\tsdscbundle.sdsc_execute () {other_sdsc_filename=\"x.json\", "
                  "sdsc_filename=\"sdsc_0.json\"}\n");
    REQUIRE(r.order.has_value());
    CHECK(r.order->files == std::vector<std::string>{"sdsc_0.json"});
}

TEST_CASE("bundle: spec paths follow the scf.for nesting (OpSpec/LoopSpec tree)") {
    using Paths = std::vector<std::vector<std::uint64_t>>;
    SUBCASE("flat: [i] for the i-th sdsc_execute") {
        auto r = parse_bundle(
            "b", bundle({exec("sdsc_0.json"), exec("sdsc_1.json"), exec("sdsc_0.json")}));
        REQUIRE(r.order);
        CHECK(r.order->spec_paths == Paths{{0}, {1}, {2}});
    }
    SUBCASE("loops: the loop is an item, its body is one level down") {
        auto r = parse_bundle(
            "b", bundle({"\t\t%c0 = arith.constant 0 : index", exec("sdsc_0.json"),
                         "\t\tscf.for %i = %c0 to %c4 step %c1 {", "\t" + exec_args("sdsc_1.json"),
                         "\t" + exec("sdsc_2.json"), "\t\t\tscf.for %j = %c0 to %c4 step %c1 {",
                         "\t\t" + exec("sdsc_3.json"), "\t\t\t}", "\t\t}", exec("sdsc_4.json"),
                         "\t\tscf.for %k = %c0 to %c4 step %c1 {", "\t" + exec("sdsc_5.json"),
                         "\t\t}"}));
        REQUIRE(r.order);
        CHECK(r.order->spec_paths == Paths{{0}, {1, 0}, {1, 1}, {1, 2, 0}, {2}, {3, 0}});
        CHECK(r.order->files.size() == r.order->spec_paths.size());
    }
}
