// Explain: target resolution (file, directory, kernel name), one kernel's ops with the source
// lines their handles point at, and both printers. Real temporary files throughout: explain reads
// SDSC files and model sources from disk.
#include "sdscprov/commands/explain.hpp"
#include "sdscprov/report/explain_printers.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <simdjson.h>
#include <sstream>
#include <sys/stat.h>

using namespace sdscprov;

namespace {

const std::string kernel_dir = "inductor-spyre/sdsc_fused_add_mul_0_abcd1234";

std::string source_json(const std::string& file, int line) {
    return R"({"file": ")" + file + R"(", "start_line": )" + std::to_string(line) +
           R"(, "start_col": 0, "end_line": null, "end_col": null})";
}

std::string json_string_or_null(const std::string& s) {
    return s == "null" ? s : '"' + s + '"';
}

// A handle as torch-spyre writes it (docs/formats.md, "`debug_handle_`"); `source` is JSON (an
// object or null).
std::string handle_json(const std::string& id, const std::string& source, const std::string& aten,
                        const std::string& ir_chain, const std::string& fused_from = "[]",
                        const std::string& history = "[]") {
    return R"({"id": ")" + id + R"(", "source": )" + source + R"(, "aten_op": )" +
           json_string_or_null(aten) + R"(, "ir_chain": )" + ir_chain + R"(, "fused_from": )" +
           fused_from + R"(, "transform_history": )" + history + "}";
}

std::string sdsc_doc(const std::string& op_key, const std::string& handle_member) {
    std::string members = handle_member.empty() ? "" : handle_member + ",\n    ";
    return "{\n  \"" + op_key + "\": {\n    " + members + "\"numCoresUsed_\": 32\n  }\n}";
}

struct Fixture {
    test::TempDir tmp{"sdscprov-explain"};
    std::string model;   // a readable model source
    std::string missing; // a model source that does not exist

    Fixture() {
        model = (tmp.root / "src/model.py").string();
        missing = (tmp.root / "src/gone.py").string();
        tmp.file("src/model.py", "import torch\r\n\n"
                                 "class M(torch.nn.Module):\n"
                                 "    def forward(self, x):\n"
                                 "        y = torch.add(x, 1)\n"
                                 "        return y * 2\n");
        std::string fused =
            "[" + handle_json("11", source_json(model, 5), "aten.add.Tensor", R"(["add"])") + ", " +
            handle_json("12", source_json(model, 6), "aten.mul.Tensor", R"(["mul"])") + "]";
        tmp.file(
            kernel_dir + "/sdsc_0.json",
            sdsc_doc("0_add", R"("debug_handle_": )" +
                                  handle_json("8249498605557491263", source_json(model, 5),
                                              "aten.add.Tensor", R"(["add", "mul", "buf0"])", fused,
                                              R"([{"kind": "rewrite", "pass_name": )"
                                              R"("insert_restickify", "reason": "layout"}])")));
        tmp.file(
            kernel_dir + "/sdsc_1.json",
            sdsc_doc("1_mul", R"("debug_handle_": )" + handle_json("7", source_json(missing, 3),
                                                                   "null", R"(["mul", "buf1"])")));
        tmp.file(kernel_dir + "/sdsc_2.json", sdsc_doc("2_relufwd", R"("debug_handle_": null)"));
        tmp.file(kernel_dir + "/sdsc_3.json", sdsc_doc("3_exp", ""));
        tmp.file(kernel_dir + "/sdsc_4.json", sdsc_doc("4_neg", R"("debug_handle_": "42")"));
        tmp.file(kernel_dir + "/sdsc_5.json", "{\"5_max\": ");
        tmp.file(kernel_dir + "/bundle.mlir", "");
    }

    std::string dir() const { return (tmp.root / kernel_dir).string(); }
};

std::vector<KernelDir> resolve(const std::string& target, const std::vector<std::string>& roots,
                               std::vector<Problem>& problems) {
    return resolve_explain_target(target, roots, problems);
}

// The kernel `target` names, its source lines read under the system's temporary directory (the
// fixtures' sources are there).
ExplainKernel explain_one(const std::string& target) {
    std::vector<Problem> problems;
    auto dirs = resolve(target, {}, problems);
    REQUIRE(problems.empty());
    REQUIRE(dirs.size() == 1);
    Scanner scanner;
    SourceTextOptions rule;
    rule.roots = {std::filesystem::temp_directory_path().string()};
    SourceLines lines(rule);
    return explain_kernel(dirs[0], scanner, lines);
}

} // namespace

TEST_CASE("explain: a file target is its kernel directory with only that file") {
    Fixture f;
    std::vector<Problem> problems;
    auto dirs = resolve(f.dir() + "/sdsc_1.json", {}, problems);
    CHECK(problems.empty());
    REQUIRE(dirs.size() == 1);
    CHECK(dirs[0].path == f.dir());
    CHECK(dirs[0].kernel == "sdsc_fused_add_mul_0");
    REQUIRE(dirs[0].files.size() == 1);
    CHECK(dirs[0].files[0].path == f.dir() + "/sdsc_1.json");
}

TEST_CASE("explain: a directory target is every kernel directory below it") {
    Fixture f;
    std::vector<Problem> problems;
    auto dirs = resolve(f.dir(), {}, problems);
    CHECK(problems.empty());
    REQUIRE(dirs.size() == 1);
    CHECK(dirs[0].files.size() == 6);

    dirs = resolve((f.tmp.root / "inductor-spyre").string(), {}, problems);
    CHECK(problems.empty());
    CHECK(dirs.size() == 1);

    f.tmp.file("empty/readme.txt", "");
    dirs = resolve((f.tmp.root / "empty").string(), {}, problems);
    CHECK(dirs.empty());
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == ProblemCode::bad_argument);
    CHECK(problems[0].message.find("no SDSC files under") != std::string::npos);
}

TEST_CASE("explain: a kernel name is looked up under the search roots") {
    Fixture f;
    // A recompile of the same kernel in another cache, with the newer <8 hex>_ prefix.
    test::TempDir other("sdscprov-explain-other");
    other.file("inductor-spyre/0123abcd_sdsc_fused_add_mul_0_zz99yy88/sdsc_0.json",
               sdsc_doc("0_add", ""));
    other.file("inductor-spyre/sdsc_fused_add_mul_1_zz99yy88/sdsc_0.json", sdsc_doc("0_add", ""));
    std::vector<std::string> roots = {f.tmp.root.string(), other.root.string()};
    std::vector<Problem> problems;

    auto dirs = resolve("sdsc_fused_add_mul_0", roots, problems);
    CHECK(problems.empty());
    REQUIRE(dirs.size() == 2);
    CHECK(dirs[0].path == f.dir());
    CHECK(dirs[1].path.ends_with("0123abcd_sdsc_fused_add_mul_0_zz99yy88"));

    SUBCASE("by directory name") {
        dirs = resolve("sdsc_fused_add_mul_1_zz99yy88", roots, problems);
        CHECK(problems.empty());
        REQUIRE(dirs.size() == 1);
        CHECK(dirs[0].kernel == "sdsc_fused_add_mul_1");
    }
    SUBCASE("not found") {
        dirs = resolve("sdsc_fused_relu_7", roots, problems);
        CHECK(dirs.empty());
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].code == ProblemCode::bad_argument);
        CHECK(problems[0].severity == Severity::error);
        CHECK(problems[0].message == "no kernel directory named 'sdsc_fused_relu_7' under '" +
                                         roots[0] + "', '" + roots[1] + "'");
    }
    SUBCASE("not found, with the nearest names") {
        dirs = resolve("sdsc_fused_add_mul_2", roots, problems);
        CHECK(dirs.empty());
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].message == "no kernel directory named 'sdsc_fused_add_mul_2' under '" +
                                         roots[0] + "', '" + roots[1] +
                                         "'; the nearest names: sdsc_fused_add_mul_0, "
                                         "sdsc_fused_add_mul_1");
    }
    SUBCASE("a missing search root is reported, the others are searched") {
        dirs =
            resolve("sdsc_fused_add_mul_1", {(f.tmp.root / "nope").string(), roots[1]}, problems);
        CHECK(dirs.size() == 1);
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].code == ProblemCode::bad_argument);
        CHECK(problems[0].message.find("cannot access") != std::string::npos);
    }
    SUBCASE("no search roots") {
        dirs = resolve("sdsc_fused_add_mul_0", {}, problems);
        CHECK(dirs.empty());
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].code == ProblemCode::bad_argument);
    }
}

TEST_CASE("explain: a missing path is not taken for a kernel name") {
    Fixture f;
    std::vector<Problem> problems;
    auto dirs = resolve(f.dir() + "/sdsc_9.json", {f.tmp.root.string()}, problems);
    CHECK(dirs.empty());
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == ProblemCode::bad_argument);
    CHECK(problems[0].message.find("cannot access") == 0);

    dirs = resolve("", {f.tmp.root.string()}, problems);
    CHECK(dirs.empty());
    CHECK(problems.size() == 2);
}

TEST_CASE("explain: ops carry their handles and the source lines they point at") {
    Fixture f;
    ExplainKernel k = explain_one(f.dir());
    CHECK(k.dir == f.dir());
    CHECK(k.kernel == "sdsc_fused_add_mul_0");
    CHECK(k.pre_grad_nodes.empty());
    CHECK(k.post_grad_nodes.empty());
    REQUIRE(k.ops.size() == 6);

    const ExplainOp& add = k.ops[0];
    CHECK(add.file == f.dir() + "/sdsc_0.json");
    CHECK(add.status == FileStatus::ok);
    CHECK(add.op_key == "0_add");
    CHECK(add.opfunc == "add");
    CHECK(add.index == 0);
    CHECK(add.handle_state == HandleState::populated);
    REQUIRE(add.handle);
    CHECK(add.handle->aten_op == "aten.add.Tensor");
    CHECK(add.source_line_text == "        y = torch.add(x, 1)");
    REQUIRE(add.fused_source_line_texts.size() == 2);
    CHECK(add.fused_source_line_texts[0] == "        y = torch.add(x, 1)");
    CHECK(add.fused_source_line_texts[1] == "        return y * 2");
    CHECK(add.problems.empty());

    const ExplainOp& mul = k.ops[1]; // its source file does not exist
    CHECK(mul.handle_state == HandleState::populated);
    REQUIRE(mul.handle);
    CHECK_FALSE(mul.handle->aten_op);
    CHECK_FALSE(mul.source_line_text);
    CHECK(mul.fused_source_line_texts.empty());

    CHECK(k.ops[2].handle_state == HandleState::null);
    CHECK_FALSE(k.ops[2].handle);
    CHECK_FALSE(k.ops[2].source_line_text);
    CHECK(k.ops[3].handle_state == HandleState::absent);
    CHECK_FALSE(k.ops[3].handle);
    CHECK(k.ops[4].handle_state == HandleState::malformed);
    REQUIRE(k.ops[4].problems.size() == 1);
    CHECK(k.ops[4].problems[0].code == ProblemCode::malformed_handle);
    CHECK(k.ops[5].status == FileStatus::invalid_json);
    REQUIRE_FALSE(k.ops[5].problems.empty());
    CHECK(k.ops[5].problems[0].code == ProblemCode::parse_error);
}

TEST_CASE("explain: source lines: CRLF, BOM, last line, out of range, invalid UTF-8") {
    test::TempDir tmp("sdscprov-explain-src");
    tmp.file("a.py", "\xEF\xBB\xBF"
                     "first\r\nbad \xFF byte\nlast without newline");
    std::string a = (tmp.root / "a.py").string();
    struct Case {
        int line;
        std::optional<std::string> text;
    };
    const Case cases[] = {
        {1, "first"},
        {2, "bad \xEF\xBF\xBD byte"},
        {3, "last without newline"},
        {4, std::nullopt},
        {0, std::nullopt},
    };
    for (const auto& c : cases) {
        CAPTURE(c.line);
        tmp.file("k/sdsc_0.json",
                 sdsc_doc("0_add", R"("debug_handle_": )" + handle_json("1", source_json(a, c.line),
                                                                        "null", R"(["a"])")));
        ExplainKernel k = explain_one((tmp.root / "k/sdsc_0.json").string());
        REQUIRE(k.ops.size() == 1);
        CHECK(k.ops[0].source_line_text == c.text);
    }
}

TEST_CASE("explain: sources that are not small regular files are not read") {
    test::TempDir tmp("sdscprov-explain-src");
    std::string big = (tmp.root / "big.py").string();
    tmp.file("big.py", "x = 1\n");
    std::filesystem::resize_file(big, max_source_file_size + 1); // sparse
    std::string fifo = (tmp.root / "fifo.py").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string dir = (tmp.root / "sub").string();
    std::filesystem::create_directories(dir);
    for (const auto& path : {big, fifo, dir}) {
        CAPTURE(path);
        tmp.file("k/sdsc_0.json",
                 sdsc_doc("0_add", R"("debug_handle_": )" +
                                       handle_json("1", source_json(path, 1), "null", R"(["a"])")));
        ExplainKernel k = explain_one((tmp.root / "k/sdsc_0.json").string());
        REQUIRE(k.ops.size() == 1);
        CHECK(k.ops[0].handle_state == HandleState::populated);
        CHECK_FALSE(k.ops[0].source_line_text);
    }
}

TEST_CASE("explain: JSON printer") {
    Fixture f;
    std::vector<ExplainKernel> kernels{explain_one(f.dir())};
    kernels[0].post_grad_nodes = {"add", "mul"};
    std::vector<Problem> problems{
        make_problem("/x", {}, ProblemCode::bad_argument, "cannot access: No such file")};
    std::ostringstream out;
    print_explain_json(out, kernels, problems);
    std::string json = out.str();

    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
    CHECK(uint64_t(doc["sdscprov_explain"]) == 1);
    auto k = doc["kernels"].at(0);
    CHECK(std::string_view(k["dir"]) == f.dir());
    CHECK(std::string_view(k["kernel"]) == "sdsc_fused_add_mul_0");
    CHECK(simdjson::dom::array(k["pre_grad_nodes"]).size() == 0);
    CHECK(std::string_view(k["post_grad_nodes"].at(1)) == "mul");
    auto ops = simdjson::dom::array(k["ops"]);
    REQUIRE(ops.size() == 6);

    auto add = k["ops"].at(0);
    CHECK(std::string_view(add["file"]) == f.dir() + "/sdsc_0.json");
    CHECK(std::string_view(add["status"]) == "ok");
    CHECK(std::string_view(add["op"]) == "0_add");
    CHECK(std::string_view(add["opfunc"]) == "add");
    CHECK(uint64_t(add["index"]) == 0);
    CHECK(std::string_view(add["handle"]) == "populated");
    auto h = add["debug_handle"];
    CHECK(std::string_view(h["id"]) == "8249498605557491263");
    CHECK(std::string_view(h["source"]["file"]) == f.model);
    CHECK(int64_t(h["source"]["start_line"]) == 5);
    CHECK(h["source"]["end_line"].is_null());
    CHECK(std::string_view(h["aten_op"]) == "aten.add.Tensor");
    CHECK(std::string_view(h["ir_chain"].at(2)) == "buf0");
    CHECK(std::string_view(h["fused_from"].at(1)["aten_op"]) == "aten.mul.Tensor");
    CHECK(std::string_view(h["transform_history"].at(0)["pass_name"]) == "insert_restickify");
    CHECK(std::string_view(add["source_line_text"]) == "        y = torch.add(x, 1)");
    CHECK(std::string_view(add["fused_source_line_texts"].at(1)) == "        return y * 2");
    CHECK(simdjson::dom::array(add["problems"]).size() == 0);

    auto mul = k["ops"].at(1);
    CHECK(mul["debug_handle"]["aten_op"].is_null());
    CHECK(mul["source_line_text"].is_null());
    CHECK(std::string_view(k["ops"].at(2)["handle"]) == "null");
    CHECK(k["ops"].at(2)["debug_handle"].is_null());
    CHECK(std::string_view(k["ops"].at(3)["handle"]) == "absent");
    CHECK(std::string_view(k["ops"].at(4)["handle"]) == "malformed");
    CHECK(std::string_view(k["ops"].at(4)["problems"].at(0)["code"]) == "malformed-handle");
    auto bad = k["ops"].at(5);
    CHECK(std::string_view(bad["status"]) == "invalid-json");
    CHECK(bad["op"].is_null());
    CHECK(bad["handle"].is_null());
    CHECK(uint64_t(bad["problems"].at(0)["line"]) == 1);

    auto p = doc["problems"].at(0);
    CHECK(std::string_view(p["code"]) == "bad-argument");
    CHECK(p["line"].is_null());
}

TEST_CASE("explain: text printer") {
    Fixture f;
    std::vector<ExplainKernel> kernels{explain_one(f.dir())};
    std::ostringstream out;
    print_explain_text(out, kernels, false);
    std::string text = out.str();
    CAPTURE(text);
    auto has = [&](const std::string& s) { return text.find(s) != std::string::npos; };
    CHECK(text.find("kernel sdsc_fused_add_mul_0  " + f.dir() + "\n") == 0);
    CHECK(has("6 SDSC files, 2 with a populated debug_handle_\n"));
    CHECK(has("\nsdsc_0.json  op 0_add  opfunc add  debug_handle_ populated\n"));
    CHECK(has("  source:     " + f.model + ":5\n              > y = torch.add(x, 1)\n"));
    CHECK(has("  aten:       aten.add.Tensor\n"));
    CHECK(has("  ir_chain:   add -> mul -> buf0\n"));
    CHECK(has("  fused from: 2 constituents\n"));
    CHECK(has("    - aten.mul.Tensor  ir_chain: mul\n      source: " + f.model +
              ":6\n        > return y * 2\n"));
    CHECK(has("  transforms:\n    1. rewrite insert_restickify: layout\n"));
    CHECK(has("  id:         8249498605557491263\n"));
    // The missing source: location only, no line text.
    CHECK(has("  source:     " + f.missing + ":3 (not readable here)\n  aten:       none\n"));
    CHECK(has("sdsc_2.json  op 2_relufwd  opfunc relufwd  debug_handle_ null\n"));
    CHECK(has("sdsc_3.json  op 3_exp  opfunc exp  debug_handle_ absent\n"
              "  no debug_handle_: run sdscprov annotate with the compile's origins map\n"));
    CHECK(has("sdsc_4.json  op 4_neg  opfunc neg  debug_handle_ malformed\n"));
    CHECK(has("[malformed-handle]\n"));
    CHECK(has("sdsc_5.json  invalid-json\n  error: 1:"));
    CHECK_FALSE(has("pre-grad"));
    CHECK_FALSE(has("\x1b["));

    kernels[0].pre_grad_nodes = {"linear"};
    std::ostringstream colored;
    print_explain_text(colored, kernels, true);
    CHECK(colored.str().find("\x1b[1mkernel sdsc_fused_add_mul_0\x1b[0m") == 0);
    CHECK(colored.str().find("pre-grad nodes:  linear\n") != std::string::npos);
}

TEST_CASE("explain: a kernel row of profile is its bundle's directory") {
    Fixture f;
    // Another compile whose kernel has the same name, with other handles.
    test::TempDir other("sdscprov-explain-other");
    other.file("inductor-spyre/0123abcd_sdsc_fused_add_mul_0_zz99yy88/sdsc_0.json",
               sdsc_doc("0_add", R"("debug_handle_": )" +
                                     handle_json("99", "null", "aten.add.Tensor", R"(["add"])")));
    std::vector<std::string> roots = {f.tmp.root.string(), other.root.string()};
    std::vector<Problem> problems;
    const std::string key = "mlpfcaddbbbbbbb3";

    SUBCASE("KERNEL@DIRECTORY-NAME") {
        auto dirs =
            resolve("sdsc_fused_add_mul_0@0123abcd_sdsc_fused_add_mul_0_zz99yy88", roots, problems);
        CHECK(problems.empty());
        REQUIRE(dirs.size() == 1);
        CHECK(dirs[0].path.ends_with("/0123abcd_sdsc_fused_add_mul_0_zz99yy88"));
        dirs = resolve("sdsc_fused_add_mul_0@sdsc_fused_add_mul_0_abcd1234", roots, problems);
        REQUIRE(dirs.size() == 1);
        CHECK(dirs[0].path == f.dir());
    }
    SUBCASE("KERNEL@KEY without a sidecar: the kernel's one directory, else which they are") {
        auto dirs = resolve("sdsc_fused_add_mul_0@" + key, {roots[1]}, problems);
        CHECK(problems.empty());
        REQUIRE(dirs.size() == 1);
        dirs = resolve("sdsc_fused_add_mul_0@" + key, roots, problems);
        CHECK(dirs.empty());
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].message.find(key + " is a provenance key: only torch-spyre's "
                                             "spyre_provenance.json (--origins) says which") == 0);
        CHECK(problems[0].message.find(f.dir()) != std::string::npos);
        CHECK(problems[0].message.find("0123abcd_sdsc_fused_add_mul_0_zz99yy88") !=
              std::string::npos);
    }
    SUBCASE("KERNEL@KEY, the key alone and the event name with a sidecar: the directory that "
            "holds the key's handles") {
        SpyreProvenance doc;
        doc.path = "spyre_provenance.json";
        doc.identities[key].direct_handle_ids = {"99"};
        doc.occurrences["o"].identity_key = key;
        doc.occurrences["o"].kernel_name = "sdsc_fused_add_mul_0";
        for (const std::string target :
             {"sdsc_fused_add_mul_0@" + key, key, "spyre_kernel_v1_fused_add_" + key}) {
            CAPTURE(target);
            auto dirs = resolve_explain_target(target, roots, problems, {}, {doc});
            CHECK(problems.empty());
            REQUIRE(dirs.size() == 1);
            CHECK(dirs[0].path.ends_with("/0123abcd_sdsc_fused_add_mul_0_zz99yy88"));
        }
    }
}

TEST_CASE("explain: the nearest names by edit distance") {
    const std::vector<std::string> names = {"sdsc_fused_add_0", "sdsc_fused_add_1",
                                            "sdsc_fused_mul_0", "sdsc_fused_addmm_linear_relu_0",
                                            "abc"};
    struct Case {
        std::string target;
        std::vector<std::string> nearest;
    };
    const std::vector<Case> cases = {
        {"sdsc_fused_add_2", {"sdsc_fused_add_0", "sdsc_fused_add_1", "sdsc_fused_mul_0"}},
        {"sdsc_fusd_add_0", {"sdsc_fused_add_0", "sdsc_fused_add_1", "sdsc_fused_mul_0"}},
        {"sdsc_fused_add_0", {"sdsc_fused_add_1", "sdsc_fused_mul_0"}}, // itself left out
        {"abd", {"abc"}},
        {"xyz_unrelated_name", {}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.target);
        CHECK(nearest_names(c.target, names) == c.nearest);
    }
    CHECK(nearest_names("sdsc_fused_add_2", names, 1) ==
          std::vector<std::string>{"sdsc_fused_add_0"});
}
