// Join: directory -> map entry, OpSpec -> file, and the plan for each file. Pure functions over
// hand-made maps and scans.
#include "sdscprov/sidecars/derive.hpp"
#include "sdscprov/join/join.hpp"
#include "sdscprov/write/writer.hpp"

#include <doctest/doctest.h>

using namespace sdscprov;

namespace {

// A map with kernel "sdsc_fused_add_mul_0": op0 add (origin "add"), op1 mul (origins "mul",
// "x"), op2 identity (no origins); and kernel "sdsc_fused_relu_1" with dir "relu_dir_abcdefgh".
const char* map_text = R"({
  "sdscprov_origins": 1,
  "nodes": {
    "add": {"original_aten": "aten.add.Tensor", "stack_trace": "  File \"/w/m.py\", line 3, in f\n"},
    "mul": {"original_aten": "aten.mul.Tensor", "stack_trace": null},
    "x": {"original_aten": null, "stack_trace": null},
    "relu": {"original_aten": "aten.relu.default", "stack_trace": null}
  },
  "kernels": [
    {"name": "sdsc_fused_add_mul_0", "ops": [
      {"opfunc": "add", "buffer": "buf0", "origins": ["add"], "origin_node": "add"},
      {"opfunc": "mul", "buffer": "buf1", "origins": ["x", "mul"]},
      {"opfunc": "identity", "buffer": "buf2", "origins": []}]},
    {"name": "sdsc_fused_relu_1", "dir": "relu_dir_abcdefgh", "ops": [
      {"opfunc": "relufwd", "buffer": "buf0", "origins": ["relu"]}]}
  ]
})";

OriginsIndex make_index(const char* text = map_text) {
    auto read = parse_origins_map("map.json", text);
    REQUIRE(read.map.has_value());
    std::vector<OriginsMap> maps;
    maps.push_back(std::move(*read.map));
    return OriginsIndex(std::move(maps));
}

KernelDir dir_of(const std::string& path, std::vector<std::string> names) {
    KernelDir d;
    d.path = path;
    d.kernel = kernel_name_from_dir(path.substr(path.rfind('/') + 1));
    for (const auto& n : names) {
        auto m = match_sdsc_file_name(n);
        d.files.push_back({path + "/" + n, m ? *m : SdscName{}});
    }
    return d;
}

ScanResult scan(const std::string& doc, const std::string& path = "k/sdsc_0.json") {
    Scanner scanner;
    return scanner.scan_bytes(SdscFile{path, *match_sdsc_file_name("sdsc_0.json")}, doc);
}

} // namespace

TEST_CASE("join: a directory is matched by kernel name, ops by file index") {
    auto index = make_index();
    auto dir = dir_of("cache/sdsc_fused_add_mul_0_abcdefgh",
                      {"sdsc_0.json", "sdsc_1.json", "sdsc_2.json"});
    auto join = join_kernel(dir, std::nullopt, index, 1);
    REQUIRE(join.match == KernelMatch::matched);
    CHECK(join.entry->kernel->name == "sdsc_fused_add_mul_0");
    CHECK(join.ops == std::vector<std::vector<std::size_t>>{{0}, {1}, {2}});
    CHECK(join.problems.empty());
    CHECK(join.lost_ops.empty());
    // The handles are derived at the join, one per OpSpec: op1 fuses two origins, op2 has none.
    REQUIRE(join.handles.size() == 3);
    REQUIRE(join.handles[1]);
    CHECK(join.handles[1]->ir_chain == std::vector<std::string>{"mul", "x", "buf1"});
    CHECK(join.handles[1]->fused_from.size() == 2);
    CHECK_FALSE(join.handles[2].has_value());
}

TEST_CASE("join: by directory name first, several directories with one name are ambiguous") {
    auto index = make_index();
    auto by_dir =
        join_kernel(dir_of("c/relu_dir_abcdefgh", {"sdsc_0.json"}), std::nullopt, index, 1);
    CHECK(by_dir.match == KernelMatch::matched);
    CHECK(by_dir.entry->kernel->name == "sdsc_fused_relu_1");

    // The relu entry names its dir: another directory of that kernel is not in the map.
    auto other = join_kernel(dir_of("c/sdsc_fused_relu_1_zzzzzzzz", {"sdsc_0.json"}), std::nullopt,
                             index, 1);
    CHECK(other.match == KernelMatch::not_in_map);

    auto twice = join_kernel(dir_of("c/sdsc_fused_add_mul_0_aaaaaaaa", {"sdsc_0.json"}),
                             std::nullopt, index, 2);
    CHECK(twice.match == KernelMatch::ambiguous);
    CHECK(twice.entry == nullptr);
    REQUIRE(twice.problems.size() == 1);
    CHECK(twice.problems[0].code == ProblemCode::ambiguous_kernel);
    CHECK(twice.ops[0].empty());

    auto unknown =
        join_kernel(dir_of("c/sdsc_fused_neg_9_aaaaaaaa", {"sdsc_0.json"}), std::nullopt, index, 1);
    CHECK(unknown.match == KernelMatch::not_in_map);
    CHECK(unknown.detail == "kernel not in the origins map");
}

TEST_CASE("join: two map entries for one kernel are ambiguous") {
    std::string text = map_text;
    // A second entry for sdsc_fused_relu_1 without dir, and a second without dir for add_mul.
    text.replace(text.rfind("]\n}"), 3, ", {\"name\": \"sdsc_fused_add_mul_0\", \"ops\": []}]\n}");
    auto index = make_index(text.c_str());
    auto join = join_kernel(dir_of("c/sdsc_fused_add_mul_0_abcdefgh", {"sdsc_0.json"}),
                            std::nullopt, index, 1);
    CHECK(join.match == KernelMatch::ambiguous);
    REQUIRE(join.problems.size() == 1);
    CHECK(join.problems[0].message.find("map.json:") != std::string::npos);
}

TEST_CASE("join: bundle.mlir decides which file each OpSpec runs, with de-duplication") {
    auto index = make_index();
    auto dir = dir_of("c/sdsc_fused_add_mul_0_abcdefgh", {"sdsc_0.json", "sdsc_1.json"});
    BundleOrder dedup{{"sdsc_1.json", "sdsc_1.json", "sdsc_0.json"}};
    auto join = join_kernel(dir, dedup, index, 1);
    REQUIRE(join.match == KernelMatch::matched);
    CHECK(join.ops == std::vector<std::vector<std::size_t>>{{2}, {0, 1}});
    // op1 (mul) shares op0's file: its handle is held only in the map.
    CHECK(join.lost_ops == std::vector<std::size_t>{1});

    // op2 has no FX origins: sharing a file, it loses no handle.
    BundleOrder no_handle{{"sdsc_1.json", "sdsc_0.json", "sdsc_1.json"}};
    auto shared = join_kernel(dir, no_handle, index, 1);
    CHECK(shared.ops == std::vector<std::vector<std::size_t>>{{1}, {0, 2}});
    CHECK(shared.lost_ops.empty());

    BundleOrder short_bundle{{"sdsc_0.json", "sdsc_1.json"}};
    auto mismatch = join_kernel(dir, short_bundle, index, 1);
    CHECK(mismatch.match == KernelMatch::unusable);
    REQUIRE(mismatch.problems.size() == 1);
    CHECK(mismatch.problems[0].code == ProblemCode::join_mismatch);

    BundleOrder missing{{"sdsc_0.json", "sdsc_1.json", "sdsc_7.json"}};
    auto gone = join_kernel(dir, missing, index, 1);
    CHECK(gone.match == KernelMatch::unusable);
    CHECK(gone.problems[0].message.find("sdsc_7.json") != std::string::npos);
}

TEST_CASE("join: the plan for each file") {
    auto index = make_index();
    auto dir = dir_of("c/sdsc_fused_add_mul_0_abcdefgh",
                      {"sdsc_0.json", "sdsc_1.json", "sdsc_2.json", "sdsc_3.json"});
    auto join = join_kernel(dir, std::nullopt, index, 1);
    const DebugHandle& add = *join.handles[0];
    std::string add_json =
        R"({"id": ")" + add.id +
        R"(", "source": {"file": "/w/m.py", "start_line": 3, "start_col": 0, "end_line": null, "end_col": null}, "aten_op": "aten.add.Tensor", "ir_chain": ["add", "buf0"], "fused_from": [], "transform_history": []})";
    std::string other_json =
        R"({"id": "1", "source": null, "aten_op": null, "ir_chain": ["add", "buf0"], "fused_from": [], "transform_history": []})";
    struct Case {
        const char* what;
        std::size_t file;
        std::string doc;
        bool refresh;
        FileAction action;
    };
    const Case cases[] = {
        {"absent", 0, R"({"0_add": {"x": 1}})", false, FileAction::add},
        {"null", 0, R"({"0_add": {"debug_handle_": null}})", false, FileAction::fill},
        {"equal", 0, "{\"0_add\": {\"debug_handle_\": " + add_json + "}}", false, FileAction::keep},
        {"differs", 0, "{\"0_add\": {\"debug_handle_\": " + other_json + "}}", false,
         FileAction::differs},
        {"refresh", 0, "{\"0_add\": {\"debug_handle_\": " + other_json + "}}", true,
         FileAction::refresh},
        {"malformed", 0, R"({"0_add": {"debug_handle_": 7}})", true, FileAction::malformed},
        {"opfunc", 0, R"({"0_sub": {}})", false, FileAction::opfunc_mismatch},
        {"no origins", 2, R"({"2_identity": {}})", false, FileAction::no_origin},
        {"no op", 3, R"({"3_add": {}})", false, FileAction::no_op},
        {"bad file", 0, R"({"0_add": )", false, FileAction::bad_file},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto plan = plan_file(join, c.file, scan(c.doc), JoinOptions{c.refresh});
        CHECK(plan.action == c.action);
        CHECK(plan.handle.has_value() == (writes(c.action) || c.action == FileAction::keep ||
                                          c.action == FileAction::differs ||
                                          c.action == FileAction::malformed));
        if (writes(c.action)) {
            CHECK(*plan.handle == add);
        }
    }
    auto unmatched =
        join_kernel(dir_of("c/sdsc_fused_x_0_abcdefgh", {"sdsc_0.json"}), std::nullopt, index, 1);
    CHECK(plan_file(unmatched, 0, scan(R"({"0_add": {}})"), {}).action == FileAction::unmatched);
}

TEST_CASE(
    "join: each joined kernel's handles are derive_handle's, and only matched ones have any") {
    OriginsMap map;
    map.path = "big.json";
    for (int n = 0; n < 30; ++n) {
        FxNode node;
        node.original_aten = "aten.op" + std::to_string(n % 7) + ".default";
        if (n % 3 != 0) {
            node.stack_trace = "  File \"/w/m.py\", line " + std::to_string(n) + ", in f\n";
        }
        map.nodes.emplace("n" + std::to_string(n), std::move(node));
    }
    for (int k = 0; k < 20; ++k) {
        OriginsKernel kernel;
        kernel.name = "sdsc_fused_k_" + std::to_string(k);
        for (int o = 0; o < 3; ++o) {
            OriginsOp op;
            op.opfunc = "add";
            op.buffer = "buf" + std::to_string(o);
            if (o != 2) { // every third op has no origins: no handle
                op.origins = {"n" + std::to_string((k + o) % 30), "n" + std::to_string(k % 30)};
            }
            kernel.ops.push_back(std::move(op));
        }
        map.kernels.push_back(std::move(kernel));
    }
    OriginsMap copy = map;
    std::vector<OriginsMap> maps;
    maps.push_back(std::move(map));
    OriginsIndex index(std::move(maps));
    for (int k = 0; k < 20; ++k) {
        auto dir = dir_of("c/sdsc_fused_k_" + std::to_string(k) + "_abcdefgh",
                          {"sdsc_0.json", "sdsc_1.json", "sdsc_2.json"});
        auto join = join_kernel(dir, std::nullopt, index, 1);
        REQUIRE(join.match == KernelMatch::matched);
        REQUIRE(join.handles.size() == 3);
        for (std::size_t o = 0; o < 3; ++o) {
            CHECK(join.handles[o] ==
                  derive_handle(copy.kernels[static_cast<std::size_t>(k)].ops[o], copy.nodes));
            CHECK(join.handles[o].has_value() == (o != 2));
        }
    }
    auto missing = join_kernel(dir_of("c/sdsc_fused_other_0_abcdefgh", {"sdsc_0.json"}),
                               std::nullopt, index, 1);
    CHECK(missing.match == KernelMatch::not_in_map);
    CHECK(missing.handles.empty());
}

TEST_CASE("join: several entries for one kernel name are settled by the files, or not at all") {
    // Two entries for sdsc_fused_add_mul_0 without dir: one runs add then mul, the other mul
    // then add (another compile's bundle with the same name).
    const char* text = R"({
  "sdscprov_origins": 1,
  "nodes": {
    "add": {"original_aten": "aten.add.Tensor", "stack_trace": null},
    "mul": {"original_aten": "aten.mul.Tensor", "stack_trace": null}
  },
  "kernels": [
    {"name": "sdsc_fused_add_mul_0", "ops": [
      {"opfunc": "add", "buffer": "buf0", "origins": ["add"]},
      {"opfunc": "mul", "buffer": "buf1", "origins": ["mul"]}]},
    {"name": "sdsc_fused_add_mul_0", "ops": [
      {"opfunc": "mul", "buffer": "buf0", "origins": ["mul"]},
      {"opfunc": "add", "buffer": "buf1", "origins": ["add"]}]}
  ]
})";
    auto index = make_index(text);
    auto dir = dir_of("c/sdsc_fused_add_mul_0_abcdefgh", {"sdsc_0.json", "sdsc_1.json"});
    auto join = join_kernel(dir, std::nullopt, index, 1);
    REQUIRE(join.match == KernelMatch::ambiguous);
    REQUIRE(join.candidates.size() == 2);

    // The files' opfuncs fit the second entry only.
    std::vector<ScanResult> scans{scan(R"({"0_mul": {"x": 1}})"),
                                  scan(R"({"1_add": {"x": 1}})", "k/sdsc_1.json")};
    auto settled = settle_join(dir, std::nullopt, join, scans);
    REQUIRE(settled.match == KernelMatch::matched);
    CHECK(settled.entry == join.candidates[1]);
    CHECK(settled.problems.empty());

    // Files that fit both (no opfunc tells them apart, e.g. every op an add): still ambiguous.
    std::vector<ScanResult> both{scan(R"({"0_add": {"x": 1}})"),
                                 scan(R"({"1_add": {"x": 1}})", "k/sdsc_1.json")};
    auto undecided = settle_join(dir, std::nullopt, join, both);
    CHECK(undecided.match == KernelMatch::ambiguous);
    CHECK(undecided.detail == "several map entries match and none fits the files");
}

TEST_CASE("join: existing handles settle several entries with the same ops") {
    // The same opfuncs; the second entry's op 0 comes from another FX node (another compile).
    const char* text = R"({
  "sdscprov_origins": 1,
  "nodes": {
    "add": {"original_aten": "aten.add.Tensor", "stack_trace": null},
    "add_7": {"original_aten": "aten.add.Tensor", "stack_trace": null}
  },
  "kernels": [
    {"name": "sdsc_fused_add_1", "ops": [{"opfunc": "add", "buffer": "buf0", "origins": ["add"]}]},
    {"name": "sdsc_fused_add_1", "ops": [{"opfunc": "add", "buffer": "buf0", "origins": ["add_7"]}]}
  ]
})";
    auto index = make_index(text);
    auto dir = dir_of("c/sdsc_fused_add_1_abcdefgh", {"sdsc_0.json"});
    auto join = join_kernel(dir, std::nullopt, index, 1);
    REQUIRE(join.candidates.size() == 2);

    std::string bare = R"({"0_add": {"x": 1}})";
    auto undecided = settle_join(dir, std::nullopt, join, {scan(bare)});
    CHECK(undecided.match == KernelMatch::ambiguous);
    CHECK(undecided.detail == "several map entries match and the files do not tell them apart");

    auto second = derive_handle(*join.candidates[1]->ops[0].op, join.candidates[1]->map->nodes);
    REQUIRE(second);
    ScanResult before = scan(bare);
    std::string with_handle;
    set_handle(bare, before, *second, with_handle);
    auto settled = settle_join(dir, std::nullopt, join, {scan(with_handle)});
    REQUIRE(settled.match == KernelMatch::matched);
    CHECK(settled.entry == join.candidates[1]);
}

// An origins map entry may list only some OpSpecs, each placed by its spec_path: exactly those
// are annotated, through bundle.mlir when there is one (a loop's OpSpec is one level down).
TEST_CASE("join: map entries placed by spec_path annotate exactly the OpSpecs they list") {
    const char* placed = R"({
  "sdscprov_origins": 1,
  "nodes": {"mul": {"original_aten": "aten.mul.Tensor", "stack_trace": null},
            "add": {"original_aten": "aten.add.Tensor", "stack_trace": null}},
  "kernels": [
    {"name": "sdsc_fused_add_mul_0", "ops": [
      {"opfunc": "mul", "buffer": "buf1", "origins": ["mul"], "spec_path": [1, 0]},
      {"opfunc": "add", "buffer": "buf3", "origins": ["add"], "spec_path": [2]}]}
  ]
})";
    auto index = make_index(placed);
    auto dir = dir_of("cache/sdsc_fused_add_mul_0_abcdefgh",
                      {"sdsc_0.json", "sdsc_1.json", "sdsc_2.json", "sdsc_3.json"});
    // Four sdsc_execute: [0], the loop [1] holding [1, 0] and [1, 1], then [2].
    BundleOrder bundle{{"sdsc_0.json", "sdsc_2.json", "sdsc_1.json", "sdsc_3.json"},
                       {{0}, {1, 0}, {1, 1}, {2}}};
    auto join = join_kernel(dir, bundle, index, 1);
    REQUIRE(join.match == KernelMatch::matched);
    CHECK(join.problems.empty());
    // [1, 0] runs sdsc_2.json, [2] runs sdsc_3.json; sdsc_0 and sdsc_1 have no OpSpec listed.
    CHECK(join.ops == std::vector<std::vector<std::size_t>>{{}, {}, {0}, {1}});

    // Without bundle.mlir a top-level spec path names sdsc_<path[0]>.json; a loop's cannot be
    // placed.
    auto flat = join_kernel(dir, std::nullopt, index, 1);
    CHECK(flat.match == KernelMatch::unusable);
    const char* top_level = R"({
  "sdscprov_origins": 1,
  "nodes": {"add": {"original_aten": "aten.add.Tensor", "stack_trace": null}},
  "kernels": [{"name": "sdsc_fused_add_mul_0", "ops": [
      {"opfunc": "add", "buffer": "buf3", "origins": ["add"], "spec_path": [3]}]}]
})";
    auto top = make_index(top_level);
    auto one = join_kernel(dir, std::nullopt, top, 1);
    REQUIRE(one.match == KernelMatch::matched);
    CHECK(one.ops == std::vector<std::vector<std::size_t>>{{}, {}, {}, {0}});
}
