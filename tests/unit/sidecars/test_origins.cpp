// The origins map reader (docs/origins-map.md): a valid map read fully, every rejected value at its
// path:line:col (1-based), warnings that keep the map. All positions below are counted by hand
// from the literal texts (members that matter start their own line, so the column is the indent
// plus one).
#include "sdscprov/sidecars/origins.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace sdscprov;

namespace {

// Line numbers are in the comments on the right; the texts start at line 1 with '{'.
const std::string valid_map = R"json({
  "sdscprov_origins": 1,
  "nodes": {
    "mm": {
      "original_aten": "aten.mm.default",
      "stack_trace": "  File \"/w/m.py\", line 3, in f\n    y = x @ w\n",
      "target": "aten.mm.default",
      "nn_module_stack": {"L__self___fc1": ["L['self'].fc1", "torch.nn.modules.linear.Linear"]},
      "source_fn_stack": [],
      "from_node": [["x", "<built-in function linear>"]]
    },
    "permute": {"original_aten": null, "stack_trace": null}
  },
  "kernels": [
    {
      "name": "sdsc_fused_mm_0",
      "dir": "sdsc_fused_mm_0_abcd1234",
      "metadata": "# Topologically Sorted Source Nodes: [x]",
      "ops": [
        {
          "opfunc": "batchmatmul",
          "buffer": "op0",
          "origins": ["mm", "permute"],
          "origin_node": "mm",
          "transform_history": [
            {"kind": "rewrite", "pass_name": "insert_restickify", "reason": null},
            {"kind": "fuse", "pass_name": "fuse_pointwise", "reason": "merged \"op1\""}
          ],
          "spec_path": [1, 0]
        },
        {"opfunc": "add", "buffer": "op1", "origins": [], "origin_node": null, "spec_path": [2]}
      ]
    },
    {"name": "sdsc_add_1", "ops": []}
  ]
}
)json";

// A map whose only op has the given members, one a line: member i starts at line 9 + i, column 11.
std::string op_map(const std::vector<std::string>& members) {
    std::string s = "{\n"                                    // 1
                    "  \"sdscprov_origins\": 1,\n"           // 2
                    "  \"nodes\": {\"a\": {}, \"b\": {}},\n" // 3
                    "  \"kernels\": [\n"                     // 4
                    "    {\n"                                // 5
                    "      \"name\": \"k\",\n"               // 6
                    "      \"ops\": [\n"                     // 7
                    "        {\n";                           // 8: the op, column 9
    for (std::size_t i = 0; i < members.size(); ++i) {
        s += "          " + members[i] + (i + 1 < members.size() ? ",\n" : "\n");
    }
    s += "        }\n      ]\n    }\n  ]\n}\n";
    return s;
}

// A map whose only kernel has the given members: member i starts at line 6 + i, column 7.
std::string kernel_map(const std::vector<std::string>& members) {
    std::string s = "{\n"                          // 1
                    "  \"sdscprov_origins\": 1,\n" // 2
                    "  \"nodes\": {\"a\": {}},\n"  // 3
                    "  \"kernels\": [\n"           // 4
                    "    {\n";                     // 5: the kernel, column 5
    for (std::size_t i = 0; i < members.size(); ++i) {
        s += "      " + members[i] + (i + 1 < members.size() ? ",\n" : "\n");
    }
    s += "    }\n  ]\n}\n";
    return s;
}

// A map whose only node "a" has the given members: member i starts at line 6 + i, column 7.
std::string node_map(const std::vector<std::string>& members) {
    std::string s = "{\n"                          // 1
                    "  \"sdscprov_origins\": 1,\n" // 2
                    "  \"kernels\": [],\n"         // 3
                    "  \"nodes\": {\n"             // 4
                    "    \"a\": {\n";              // 5: the node, column 10
    for (std::size_t i = 0; i < members.size(); ++i) {
        s += "      " + members[i] + (i + 1 < members.size() ? ",\n" : "\n");
    }
    s += "    }\n  }\n}\n";
    return s;
}

const std::string ok_op = R"("opfunc": "add")";
const std::string ok_buffer = R"("buffer": "op0")";
const std::string ok_origins = R"("origins": ["a"])";

bool has_error_at(const OriginsReadResult& r, std::size_t line, std::size_t col,
                  const std::string& message, ProblemCode code) {
    for (const auto& p : r.problems) {
        if (p.severity == Severity::error && p.code == code && p.pos.line == line &&
            p.pos.col == col && p.message.find(message) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string describe(const OriginsReadResult& r) {
    std::string s;
    for (const auto& p : r.problems) {
        s += p.path + ":" + std::to_string(p.pos.line) + ":" + std::to_string(p.pos.col) + ": " +
             std::string(to_string(p.severity)) + " [" + std::string(to_string(p.code)) + "] " +
             p.message + "\n";
    }
    return s;
}

} // namespace

TEST_CASE("origins: a valid map is read fully") {
    auto r = parse_origins_map("m.json", valid_map);
    INFO(describe(r));
    CHECK(r.problems.empty());
    REQUIRE(r.map.has_value());
    const OriginsMap& m = *r.map;
    CHECK(m.path == "m.json");

    REQUIRE(m.nodes.size() == 2);
    REQUIRE(m.nodes.count("mm") == 1);
    const FxNode& mm = m.nodes.at("mm");
    CHECK(mm.original_aten == std::optional<std::string>("aten.mm.default"));
    CHECK(mm.stack_trace ==
          std::optional<std::string>("  File \"/w/m.py\", line 3, in f\n    y = x @ w\n"));
    // Other meta is kept as the raw JSON text of the value.
    REQUIRE(mm.other_meta.size() == 4);
    CHECK(mm.other_meta.at("target") == "\"aten.mm.default\"");
    CHECK(mm.other_meta.at("nn_module_stack") ==
          R"({"L__self___fc1": ["L['self'].fc1", "torch.nn.modules.linear.Linear"]})");
    CHECK(mm.other_meta.at("source_fn_stack") == "[]");
    CHECK(mm.other_meta.at("from_node") == R"([["x", "<built-in function linear>"]])");
    REQUIRE(m.nodes.count("permute") == 1);
    const FxNode& permute = m.nodes.at("permute");
    CHECK_FALSE(permute.original_aten.has_value());
    CHECK_FALSE(permute.stack_trace.has_value());
    CHECK(permute.other_meta.empty());

    REQUIRE(m.kernels.size() == 2);
    const OriginsKernel& k0 = m.kernels[0];
    CHECK(k0.name == "sdsc_fused_mm_0");
    CHECK(k0.dir == std::optional<std::string>("sdsc_fused_mm_0_abcd1234"));
    CHECK(k0.metadata == std::optional<std::string>("# Topologically Sorted Source Nodes: [x]"));
    CHECK(k0.pos.line == 15);
    CHECK(k0.pos.col == 5);
    REQUIRE(k0.ops.size() == 2);

    const OriginsOp& op0 = k0.ops[0];
    CHECK(op0.opfunc == "batchmatmul");
    CHECK(op0.buffer == "op0");
    CHECK(op0.origins == std::vector<std::string>{"mm", "permute"});
    CHECK(op0.origin_node == std::optional<std::string>("mm"));
    REQUIRE(op0.transform_history.size() == 2);
    CHECK(op0.transform_history[0] == TransformStep{"rewrite", "insert_restickify", std::nullopt});
    CHECK(op0.transform_history[1] ==
          TransformStep{"fuse", "fuse_pointwise", std::string("merged \"op1\"")});
    CHECK(op0.spec_path == std::vector<std::uint64_t>{1, 0});
    CHECK(op0.pos.line == 20);
    CHECK(op0.pos.col == 9);

    const OriginsOp& op1 = k0.ops[1];
    CHECK(op1.opfunc == "add");
    CHECK(op1.buffer == "op1");
    CHECK(op1.origins.empty());
    CHECK_FALSE(op1.origin_node.has_value());
    CHECK(op1.transform_history.empty());
    CHECK(op1.spec_path == std::vector<std::uint64_t>{2});
    CHECK(op1.pos.line == 31);
    CHECK(op1.pos.col == 9);

    const OriginsKernel& k1 = m.kernels[1];
    CHECK(k1.name == "sdsc_add_1");
    CHECK_FALSE(k1.dir.has_value());
    CHECK_FALSE(k1.metadata.has_value());
    CHECK(k1.ops.empty());
    CHECK(k1.pos.line == 34);
    CHECK(k1.pos.col == 5);
}

TEST_CASE("origins: the smallest valid map") {
    auto r = parse_origins_map("m.json", R"({"sdscprov_origins": 1, "nodes": {}, "kernels": []})");
    INFO(describe(r));
    CHECK(r.problems.empty());
    REQUIRE(r.map.has_value());
    CHECK(r.map->nodes.empty());
    CHECK(r.map->kernels.empty());
}

TEST_CASE("origins: errors at their line:col") {
    struct Case {
        const char* what;
        std::string text;
        std::size_t line;
        std::size_t col;
        const char* message;
        ProblemCode code = ProblemCode::bad_origins;
    };
    const Case cases[] = {
        // Syntax: the end of input, column after the last character.
        {"truncated", "{\"sdscprov_origins\": 1, \"nodes\": {", 1, 35, "unexpected end of input",
         ProblemCode::parse_error},
        {"truncated on line 2", "{\n  \"sdscprov_origins\": 1,\n  \"nodes\": [", 3, 13,
         "unexpected end of input", ProblemCode::parse_error},
        {"missing comma", "{\"sdscprov_origins\": 1 \"nodes\": {}}", 1, 24,
         "expected ',' or '}' after object member", ProblemCode::parse_error},

        // The root and the version.
        {"root an array", "[1, 2]", 1, 1, "an origins map is a JSON object"},
        {"root a string after blanks", "\n  \"origins\"", 2, 3, "an origins map is a JSON object"},
        {"no version", "{\"nodes\": {}, \"kernels\": []}", 1, 1,
         "missing member 'sdscprov_origins'"},
        {"no nodes", "{\"sdscprov_origins\": 1, \"kernels\": []}", 1, 1, "missing member 'nodes'"},
        {"no kernels", "  {\"sdscprov_origins\": 1, \"nodes\": {}}", 1, 3,
         "missing member 'kernels'"},
        {"version 2", "{\n  \"sdscprov_origins\": 2,\n  \"nodes\": {},\n  \"kernels\": []\n}", 2,
         23, "unsupported origins map version"},
        {"version \"1\"",
         "{\n  \"sdscprov_origins\": \"1\",\n  \"nodes\": {},\n  \"kernels\": []\n}", 2, 23,
         "unsupported origins map version"},
        {"version 1.0", "{\n  \"sdscprov_origins\": 1.0,\n  \"nodes\": {},\n  \"kernels\": []\n}",
         2, 23, "unsupported origins map version"},

        // Unknown members, at the key.
        {"unknown at top level",
         "{\n  \"sdscprov_origins\": 1,\n  \"nodes\": {},\n  \"kernels\": [],\n  \"kernel\": []\n}",
         5, 3, "unknown member 'kernel' in the origins map"},
        {"unknown in a node", node_map({R"("original_aten": null)", R"("stak_trace": null)"}), 7, 7,
         "unknown member 'stak_trace' in node 'a'"},
        {"unknown in a kernel",
         kernel_map({R"("name": "k")", R"("ops": [])", R"("directory": "k_1")"}), 8, 7,
         "unknown member 'directory' in kernels[0]"},
        {"unknown in an op", op_map({ok_op, ok_buffer, ok_origins, R"("origin": "a")"}), 12, 11,
         "unknown member 'origin' in kernels[0].ops[0]"},
        // The member starts at column 11: '[' at 32, the step at 33, "note" at 87.
        {"unknown in a transform step",
         op_map({ok_op, ok_buffer, ok_origins,
                 R"("transform_history": [{"kind": "rewrite", "pass_name": "p", )"
                 R"("reason": null, "note": 1}])"}),
         12, 87, "unknown member 'note' in a transform_history step"},

        // Wrong types, at the value.
        {"nodes an array", "{\n  \"sdscprov_origins\": 1,\n  \"nodes\": [],\n  \"kernels\": []\n}",
         3, 12, "'nodes' must be an object"},
        {"kernels an object",
         "{\n  \"sdscprov_origins\": 1,\n  \"nodes\": {},\n  \"kernels\": {}\n}", 4, 14,
         "'kernels' must be an array"},
        {"node a string",
         "{\n  \"sdscprov_origins\": 1,\n  \"kernels\": [],\n  \"nodes\": {\"a\": \"x\"}\n}", 4, 18,
         "node 'a' must be an object"},
        {"original_aten a number", node_map({R"("original_aten": 3)"}), 6, 24,
         "'original_aten' must be a string or null"},
        {"stack_trace a list", node_map({R"("stack_trace": ["x"])"}), 6, 22,
         "'stack_trace' must be a string or null"},
        {"kernel name a number", kernel_map({R"("name": 7)", R"("ops": [])"}), 6, 15,
         "'name' must be a string"},
        {"dir with '/'", kernel_map({R"("name": "k")", R"("dir": "a/k_1")", R"("ops": [])"}), 7, 14,
         "'dir' is the kernel directory's own name"},
        {"dir empty", kernel_map({R"("name": "k")", R"("dir": "")", R"("ops": [])"}), 7, 14,
         "'dir' is the kernel directory's own name"},
        {"ops an object", kernel_map({R"("name": "k")", R"("ops": {})"}), 7, 14,
         "'ops' must be an array"},
        {"op a string", kernel_map({R"("name": "k")", R"("ops": ["add"])"}), 7, 15,
         "kernels[0].ops[0] must be an object"},
        {"origins not an array", op_map({ok_op, ok_buffer, R"("origins": "a")"}), 11, 22,
         "'origins' must be an array"},
        // "origins": ["a", 3]: '[' at column 22, 3 at column 28.
        {"origin name not a string", op_map({ok_op, ok_buffer, R"("origins": ["a", 3])"}), 11, 28,
         "an origin must be a string"},
        {"opfunc a number", op_map({R"("opfunc": 1)", ok_buffer, ok_origins}), 9, 21,
         "'opfunc' must be a string"},
        {"origin_node a number", op_map({ok_op, ok_buffer, ok_origins, R"("origin_node": 0)"}), 12,
         26, "'origin_node' must be a string or null"},
        // "spec_path": [0, -1]: '[' at column 24, -1 at column 28.
        {"spec_path negative", op_map({ok_op, ok_buffer, ok_origins, R"("spec_path": [0, -1])"}),
         12, 28, "'spec_path' holds non-negative integers"},
        {"spec_path a float", op_map({ok_op, ok_buffer, ok_origins, R"("spec_path": [1.5])"}), 12,
         25, "'spec_path' holds non-negative integers"},
        {"spec_path empty", op_map({ok_op, ok_buffer, ok_origins, R"("spec_path": [])"}), 12, 24,
         "'spec_path' must not be empty"},
        {"spec_path a number", op_map({ok_op, ok_buffer, ok_origins, R"("spec_path": 0)"}), 12, 24,
         "'spec_path' must be an array"},
        {"transform_history an object",
         op_map({ok_op, ok_buffer, ok_origins, R"("transform_history": {})"}), 12, 32,
         "'transform_history' must be an array"},
        // "transform_history": [{"kind": "rewrite", "pass_name": "p"}]: the step at column 33.
        {"transform step without reason",
         op_map({ok_op, ok_buffer, ok_origins,
                 R"("transform_history": [{"kind": "rewrite", "pass_name": "p"}])"}),
         12, 33, "a transform_history step needs 'kind', 'pass_name' and 'reason'"},
        // "transform_history": [{"kind": 1, ...: 1 at column 42.
        {"transform kind a number",
         op_map({ok_op, ok_buffer, ok_origins,
                 R"("transform_history": [{"kind": 1, "pass_name": "p", "reason": null}])"}),
         12, 42, "'kind' must be a string"},

        // Duplicates, at the second key.
        {"duplicate at top level",
         "{\n  \"sdscprov_origins\": 1,\n  \"nodes\": {},\n  \"kernels\": [],\n  \"nodes\": {}\n}",
         5, 3, "duplicate member 'nodes'"},
        {"duplicate in an op", op_map({ok_op, ok_buffer, ok_origins, R"("buffer": "op1")"}), 12, 11,
         "duplicate member 'buffer'"},
        {"duplicate in a node", node_map({R"("stack_trace": null)", R"("stack_trace": "x")"}), 7, 7,
         "duplicate member 'stack_trace'"},

        // Missing members, at the object.
        {"op without opfunc", op_map({ok_buffer, ok_origins}), 8, 9,
         "kernels[0].ops[0] needs 'opfunc', 'buffer' and 'origins'"},
        {"op without buffer", op_map({ok_op, ok_origins}), 8, 9,
         "kernels[0].ops[0] needs 'opfunc', 'buffer' and 'origins'"},
        {"op without origins", op_map({ok_op, ok_buffer}), 8, 9,
         "kernels[0].ops[0] needs 'opfunc', 'buffer' and 'origins'"},
        {"kernel without name", kernel_map({R"("ops": [])"}), 5, 5, "kernels[0] has no 'name'"},
        {"kernel without ops", kernel_map({R"("name": "k")"}), 5, 5, "kernels[0] has no 'ops'"},

        // Ops placed by spec_path and ops in list order do not mix; one OpSpec, one entry. The
        // second op of line 7 starts at column 83 (column 65 when the first has no spec_path).
        {"spec_path on some ops only",
         kernel_map(
             {R"("name": "k")",
              R"("ops": [{"opfunc": "add", "buffer": "b0", "origins": [], "spec_path": [0]}, )"
              R"({"opfunc": "add", "buffer": "b1", "origins": []}])"}),
         7, 83, "kernels[0].ops[1] has no 'spec_path' but kernels[0].ops[0] has one"},
        {"spec_path only after the first op",
         kernel_map({R"("name": "k")",
                     R"("ops": [{"opfunc": "add", "buffer": "b0", "origins": []}, )"
                     R"({"opfunc": "add", "buffer": "b1", "origins": [], "spec_path": [1]}])"}),
         7, 65, "kernels[0].ops[1] has 'spec_path' but kernels[0].ops[0] has none"},
        {"spec_path twice",
         kernel_map(
             {R"("name": "k")",
              R"("ops": [{"opfunc": "add", "buffer": "b0", "origins": [], "spec_path": [2]}, )"
              R"({"opfunc": "add", "buffer": "b1", "origins": [], "spec_path": [2]}])"}),
         7, 83, "kernels[0].ops[1] has the spec_path of kernels[0].ops[0]"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        CAPTURE(c.text);
        auto r = parse_origins_map("dir/origins.json", c.text);
        INFO(describe(r));
        CHECK_FALSE(r.map.has_value());
        CHECK(has_error_at(r, c.line, c.col, c.message, c.code));
        for (const auto& p : r.problems) {
            CHECK(p.path == "dir/origins.json");
        }
    }
}

TEST_CASE("origins: a duplicate member of a large object is found whichever key it repeats") {
    // The reader compares an object's first 16 keys in place and puts the keys of a larger object
    // in a hash set: a duplicate of an early key or of a late one is found either way.
    for (std::size_t repeated :
         {std::size_t{0}, std::size_t{3}, std::size_t{15}, std::size_t{16}, std::size_t{24}}) {
        for (std::size_t at : {std::size_t{5}, std::size_t{16}, std::size_t{17}, std::size_t{30}}) {
            if (at <= repeated) {
                continue;
            }
            CAPTURE(repeated);
            CAPTURE(at);
            // One node per line from line 5 on, each "    "n<i>": {}": the key at column 5.
            std::string s = "{\n  \"sdscprov_origins\": 1,\n  \"kernels\": [],\n  \"nodes\": {\n";
            for (std::size_t i = 0; i <= 30; ++i) {
                std::string name =
                    i == at ? "n" + std::to_string(repeated) : "n" + std::to_string(i);
                s += "    \"" + name + "\": {}" + (i < 30 ? ",\n" : "\n");
            }
            s += "  }\n}\n";
            auto r = parse_origins_map("dir/origins.json", s);
            INFO(describe(r));
            CHECK(has_error_at(r, 5 + at, 5, "duplicate member 'n" + std::to_string(repeated) + "'",
                               ProblemCode::bad_origins));
            std::size_t errors = 0;
            for (const auto& p : r.problems) {
                errors += p.severity == Severity::error ? 1 : 0;
            }
            CHECK(errors == 1);
        }
    }
}

TEST_CASE("origins: the second kernel and op are named by their index") {
    const std::string text = "{\n"
                             "  \"sdscprov_origins\": 1,\n"
                             "  \"nodes\": {},\n"
                             "  \"kernels\": [\n"
                             "    {\"name\": \"k0\", \"ops\": []},\n"
                             "    {\"name\": \"k1\", \"ops\": [\n"
                             "      {\"opfunc\": \"add\", \"buffer\": \"op0\", \"origins\": []},\n"
                             "      {\"opfunc\": \"add\", \"buffer\": \"op1\", \"origin\": []}\n"
                             "    ]}\n"
                             "  ]\n"
                             "}\n";
    auto r = parse_origins_map("m.json", text);
    INFO(describe(r));
    CHECK_FALSE(r.map.has_value());
    REQUIRE(r.problems.size() == 2);
    // "origin" at column 42 of line 8; the op's '{' at column 7.
    CHECK(has_error_at(r, 8, 42, "unknown member 'origin' in kernels[1].ops[1]",
                       ProblemCode::bad_origins));
    CHECK(has_error_at(r, 8, 7, "kernels[1].ops[1] needs 'opfunc', 'buffer' and 'origins'",
                       ProblemCode::bad_origins));
}

TEST_CASE("origins: references to unknown nodes are warnings, the map is kept") {
    struct Case {
        const char* what;
        std::vector<std::string> op;
        const char* message;
    };
    const Case cases[] = {
        {"origin not in nodes",
         {ok_op, ok_buffer, R"("origins": ["a", "zz"])"},
         "origin 'zz' of kernel 'k' is not in 'nodes'"},
        {"origin_node not among origins",
         {ok_op, ok_buffer, R"("origins": ["a"])", R"("origin_node": "b")"},
         "origin_node 'b' of kernel 'k' is not one of its origins"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto r = parse_origins_map("m.json", op_map(c.op));
        INFO(describe(r));
        REQUIRE(r.map.has_value());
        REQUIRE(r.map->kernels.size() == 1);
        CHECK(r.map->kernels[0].ops.size() == 1);
        REQUIRE(r.problems.size() == 1);
        const Problem& p = r.problems[0];
        CHECK(p.severity == Severity::warning);
        CHECK(p.code == ProblemCode::bad_origins);
        CHECK(p.message.find(c.message) != std::string::npos);
        // At the op.
        CHECK(p.pos.line == 8);
        CHECK(p.pos.col == 9);
    }
}

TEST_CASE("origins: read_origins_map on a missing file") {
    auto r = read_origins_map("/nonexistent-sdscprov-dir/origins.json");
    CHECK_FALSE(r.map.has_value());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == ProblemCode::io_error);
    CHECK(r.problems[0].severity == Severity::error);
    CHECK(r.problems[0].path == "/nonexistent-sdscprov-dir/origins.json");
    CHECK(r.problems[0].pos.line == 0);
}

TEST_CASE("origins: read_origins_map on the demo map") {
    const std::string path = std::string(SDSCPROV_TESTDATA) + "/demo/origins.json";
    auto r = read_origins_map(path);
    INFO(describe(r));
    CHECK(r.problems.empty());
    REQUIRE(r.map.has_value());
    const OriginsMap& m = *r.map;
    CHECK(m.path == path);
    CHECK(m.nodes.size() == 7);
    REQUIRE(m.kernels.size() == 2);
    CHECK(m.kernels[0].name == "sdsc_fused_addmm_linear_relu_0");
    CHECK(m.kernels[0].dir ==
          std::optional<std::string>("sdsc_fused_addmm_linear_relu_0_q7k2m_x4"));
    REQUIRE(m.kernels[0].ops.size() == 4);
    CHECK(m.kernels[0].ops[0].opfunc == "batchmatmul");
    CHECK(m.kernels[0].ops[0].origins == std::vector<std::string>{"mm_default_1", "permute"});
    CHECK(m.kernels[0].ops[2].opfunc == "relufwd");
    CHECK(m.kernels[1].name == "sdsc_fused_addmm_1");
    REQUIRE(m.kernels[1].ops.size() == 1);
    CHECK(m.kernels[1].ops[0].buffer == "op4");
    CHECK(m.kernels[1].ops[0].origin_node == std::optional<std::string>("add_tensor"));
    REQUIRE(m.nodes.count("relu") == 1);
    CHECK(m.nodes.at("relu").original_aten == std::optional<std::string>("aten.relu.default"));
    CHECK(m.nodes.at("mm_default").stack_trace == std::nullopt);
}

TEST_CASE("origins: a large map read in pieces places every kernel and op where its text is") {
    // More than one read chunk (1 MiB), on many lines, with multi-byte names: each kernel's and
    // op's line:col must be the one a count over the whole text gives.
    std::string text = "{\n  \"sdscprov_origins\": 1,\n  \"nodes\": {\"n\u00e9\": {}},\n"
                       "  \"kernels\": [\n";
    std::vector<std::size_t> kernel_at;
    std::vector<std::size_t> op_at;
    for (int k = 0; k < 30000; ++k) {
        text += k == 0 ? "    " : ",\n    ";
        kernel_at.push_back(text.size());
        text += "{\"name\": \"sdsc_fused_\u00e9_" + std::to_string(k) + "\",\n      \"ops\": [";
        for (int o = 0; o < 1 + k % 3; ++o) {
            text += o == 0 ? "" : (o == 1 ? ", " : ",\n        ");
            op_at.push_back(text.size());
            text += "{\"opfunc\": \"add\", \"buffer\": \"buf\u00e9" + std::to_string(o) +
                    "\", \"origins\": [\"n\u00e9\"]}";
        }
        text += "]}";
    }
    text += "\n  ]\n}\n";
    REQUIRE(text.size() > 2 * 1024 * 1024);
    const std::string path = "origins-large.json";
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        REQUIRE(f != nullptr);
        REQUIRE(std::fwrite(text.data(), 1, text.size(), f) == text.size());
        std::fclose(f);
    }
    LineIndex lines(text);
    for (bool from_file : {true, false}) {
        CAPTURE(from_file);
        auto r = from_file ? read_origins_map(path) : parse_origins_map(path, text);
        INFO(describe(r));
        REQUIRE(r.map.has_value());
        REQUIRE(r.map->kernels.size() == kernel_at.size());
        std::size_t op = 0;
        for (std::size_t k = 0; k < kernel_at.size(); ++k) {
            const OriginsKernel& kernel = r.map->kernels[k];
            TextPosition want = lines.position(kernel_at[k]);
            if (kernel.pos.line != want.line || kernel.pos.col != want.col) {
                FAIL_CHECK("kernel " << k << " at " << kernel.pos.line << ":" << kernel.pos.col
                                     << ", its text at " << want.line << ":" << want.col);
                break;
            }
            for (const OriginsOp& o : kernel.ops) {
                TextPosition op_want = lines.position(op_at[op++]);
                if (o.pos.line != op_want.line || o.pos.col != op_want.col) {
                    FAIL_CHECK("an op of kernel " << k << " at " << o.pos.line << ":" << o.pos.col
                                                  << ", its text at " << op_want.line << ":"
                                                  << op_want.col);
                    break;
                }
            }
        }
        CHECK(op == op_at.size());
    }
    std::remove(path.c_str());
}

TEST_CASE("origins: a filter keeps its kernels, counts and names the others, drops their nodes") {
    const std::string nodes = R"( "nodes": {"a": {"stack_trace": "A"}, "b": {"stack_trace": "B"},
    "c": {}%s},
)";
    const std::string kernels = R"( "kernels": [
  {"name": "k_kept", "dir": "d_kept", "ops": [{"opfunc": "add", "buffer": "b0", "origins": ["a"]}]},
  {"name": "k_gone", "ops": [{"opfunc": "add", "buffer": "b0", "origins": ["b", "nowhere"]}]},
  {"name": "k_named", "ops": [{"opfunc": "add", "buffer": "b0", "origins": ["c"],
    "origin_node": "c"}]},
  {"name": "k_gone2", "ops": [{"opfunc": "add", "buffer": "b0", "origins": ["b"]}]}
 ],
)";
    // As a map is usually laid out (each kernel filtered as it is read), with the kernels before
    // the nodes (filtered at the end), and with an escape in a name (the whole-document reader).
    for (int layout : {0, 1, 2}) {
        CAPTURE(layout);
        std::string n = nodes;
        n.replace(n.find("%s"), 2, layout == 2 ? R"(, "\u0064": {})" : "");
        std::string body = layout == 1 ? kernels + n : n + kernels;
        body.erase(body.rfind(','), 1);
        const std::string text = "{\"sdscprov_origins\": 1,\n" + body + "}";
        const std::string path = "origins-filter.json";
        {
            std::FILE* f = std::fopen(path.c_str(), "wb");
            REQUIRE(f != nullptr);
            REQUIRE(std::fwrite(text.data(), 1, text.size(), f) == text.size());
            std::fclose(f);
        }
        KernelFilter filter{[](const OriginsKernel& k) {
                                return k.dir ? *k.dir == "d_kept" : k.name == "k_named";
                            },
                            1};
        auto r = read_origins_map(path, default_max_file_size, &filter);
        std::remove(path.c_str());
        INFO(describe(r));
        REQUIRE(r.map);
        REQUIRE(r.map->kernels.size() == 2);
        CHECK(r.map->kernels[0].name == "k_kept");
        CHECK(r.map->kernels[1].name == "k_named");
        CHECK(r.map->left_out == 2);
        REQUIRE(r.map->first_left_out.size() == 1);
        CHECK(r.map->first_left_out[0].name == "k_gone");
        CHECK(r.map->first_left_out[0].ops.empty());
        const int first_kernel_line = layout == 1 ? 3 : 5;
        CHECK(r.map->first_left_out[0].pos.line == first_kernel_line + 1);
        CHECK(r.map->nodes.size() == 2);
        CHECK(r.map->nodes.count("a") == 1);
        CHECK(r.map->nodes.count("c") == 1);
        // A left-out kernel's origin that names no node is still the map's warning.
        REQUIRE(r.problems.size() == 1);
        CHECK(r.problems[0].severity == Severity::warning);
        CHECK(r.problems[0].message.find("'nowhere' of kernel 'k_gone'") != std::string::npos);
        CHECK(r.problems[0].pos.line == first_kernel_line + 1);
    }
}
