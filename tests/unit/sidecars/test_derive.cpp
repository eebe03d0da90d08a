// Deriving handles from FX origins (docs/formats.md, "`debug_handle_`"). The SimpleMLP case follows
// the provenance audit (provenance-audit-SimpleMLP.md): its five ops, their origins and
// origin_node, the post-grad nodes' original_aten, and stack traces for the three nodes that have
// one. Expected ids were computed independently with Python (see the comment above
// `simple_mlp_ids`).
#include "sdscprov/sidecars/derive.hpp"
#include "sdscprov/handle/handle_id.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

namespace {

const std::string mlp = "/w/simple_mlp.py";
const std::string module_py = "/usr/lib/python3/site-packages/torch/nn/modules/module.py";
const std::string linear_py = "/usr/lib/python3/site-packages/torch/nn/modules/linear.py";

// A traceback as FX records it: outermost frame first. The model's forward line is reached
// through torch's module call machinery; a torch frame may also be innermost (F.linear).
std::string trace_through_module(int line, const std::string& code, bool innermost_torch) {
    std::string t = "  File \"" + mlp +
                    "\", line 31, in main\n    out = model(x)\n"
                    "  File \"" +
                    module_py +
                    "\", line 1775, in _call_impl\n"
                    "    return forward_call(*args, **kwargs)\n"
                    "  File \"" +
                    mlp + "\", line " + std::to_string(line) + ", in forward\n    " + code + "\n";
    if (innermost_torch) {
        t += "  File \"" + linear_py +
             "\", line 125, in forward\n    return F.linear(input, self.weight, self.bias)\n";
    }
    return t;
}

FxNode node(std::optional<std::string> aten, std::optional<std::string> trace = std::nullopt) {
    FxNode n;
    n.original_aten = std::move(aten);
    n.stack_trace = std::move(trace);
    return n;
}

// The audit's post-grad nodes (Stage 2, post-grad table): only permute, relu and permute_1 carry
// a stack trace.
std::map<std::string, FxNode> simple_mlp_nodes() {
    return {
        {"permute",
         node("aten.permute.default", trace_through_module(20, "x = self.fc1(x)", true))},
        {"mm_default_1", node("aten.mm.default")},
        {"add_tensor_1", node("aten.add.Tensor")},
        {"relu", node("aten.relu.default", trace_through_module(21, "x = torch.relu(x)", false))},
        {"permute_1",
         node("aten.permute.default", trace_through_module(22, "x = self.fc2(x)", true))},
        {"mm_default", node("aten.mm.default")},
        {"add_tensor", node("aten.add.Tensor")},
    };
}

OriginsOp op(std::string buffer, std::vector<std::string> origins,
             std::optional<std::string> origin_node) {
    OriginsOp o;
    o.buffer = std::move(buffer);
    o.origins = std::move(origins);
    o.origin_node = std::move(origin_node);
    return o;
}

HandleSource at(const std::string& file, std::int64_t line) {
    return HandleSource{file, line, 0, std::nullopt, std::nullopt};
}

// A fused_from child as docs/formats.md describes it; its id is checked separately.
void check_child(const DebugHandle& child, const std::optional<HandleSource>& source,
                 const std::optional<std::string>& aten_op, const std::string& name,
                 const std::string& python_id) {
    CAPTURE(name);
    CHECK(child.source == source);
    CHECK(child.aten_op == aten_op);
    CHECK(child.ir_chain == std::vector<std::string>{name});
    CHECK(child.fused_from.empty());
    CHECK(child.history_shape == HistoryShape::transform_history);
    CHECK(child.transform_history.empty());
    CHECK(child.id == handle_id_v2(child));
    CHECK(child.id == python_id);
}

} // namespace

TEST_CASE("derive: source of a stack trace") {
    SUBCASE("innermost non-torch frame, skipping torch frames inside it") {
        auto s = source_of_stack_trace(trace_through_module(20, "x = self.fc1(x)", true));
        REQUIRE(s);
        CHECK(*s == at(mlp, 20));
    }
    SUBCASE("column 0 and no end") {
        auto s = source_of_stack_trace("  File \"/w/a.py\", line 7, in f\n    g()\n");
        REQUIRE(s);
        CHECK(s->file == "/w/a.py");
        CHECK(s->start_line == 7);
        CHECK(s->start_col == 0);
        CHECK_FALSE(s->end_line);
        CHECK_FALSE(s->end_col);
    }
    SUBCASE("all frames in torch: the last frame") {
        auto s = source_of_stack_trace("  File \"" + module_py +
                                       "\", line 1775, in _call_impl\n    x\n  File \"" +
                                       linear_py + "\", line 125, in forward\n    y\n");
        REQUIRE(s);
        CHECK(*s == at(linear_py, 125));
    }
    SUBCASE("no frame") {
        CHECK_FALSE(source_of_stack_trace(""));
        CHECK_FALSE(source_of_stack_trace("Traceback (most recent call last):\n  <no frames>\n"));
        CHECK_FALSE(source_of_stack_trace("  File \"\", line 3, in f\n"));        // empty path
        CHECK_FALSE(source_of_stack_trace("  File \"/w/a.py\", line x, in f\n")); // no number
        CHECK_FALSE(source_of_stack_trace("  File \"/w/a.py\", line "));
    }
    SUBCASE("a path with spaces") {
        auto s = source_of_stack_trace("  File \"/home/me/My Models/mlp v2.py\", line 12, in f\n"
                                       "    y = f(x)\n");
        REQUIRE(s);
        CHECK(*s == at("/home/me/My Models/mlp v2.py", 12));
    }
    SUBCASE("CRLF line ends") {
        auto s = source_of_stack_trace("  File \"/w/a.py\", line 5, in f\r\n    g()\r\n"
                                       "  File \"/w/b.py\", line 6, in g\r\n    h()\r\n");
        REQUIRE(s);
        CHECK(*s == at("/w/b.py", 6));
    }
    SUBCASE("a quote ends the path: that frame is not a frame") {
        // Python's r'File "([^"]+)", line (\d+)' cannot match a path holding a quote.
        auto s = source_of_stack_trace("  File \"/w/a.py\", line 5, in f\n"
                                       "  File \"/w/it\"s.py\", line 6, in g\n");
        REQUIRE(s);
        CHECK(*s == at("/w/a.py", 5));
    }
    SUBCASE("'torch' without both slashes is not torch") {
        auto s = source_of_stack_trace("  File \"/w/torchvision_model.py\", line 3, in f\n"
                                       "  File \"/usr/lib/torch/x.py\", line 4, in g\n");
        REQUIRE(s);
        CHECK(*s == at("/w/torchvision_model.py", 3));
    }
    SUBCASE("a line number beyond int64 is not taken") {
        auto s = source_of_stack_trace("  File \"/w/a.py\", line 5, in f\n"
                                       "  File \"/w/b.py\", line 99999999999999999999, in g\n");
        REQUIRE(s);
        CHECK(*s == at("/w/a.py", 5));
    }
}

// Expected ids, computed with Python from the hand-written expected contents below:
//   json.dumps({"version": 2, "source": S, "aten_op": A, "ir_chain": I, "fused_from": F},
//              ensure_ascii=True, sort_keys=True, separators=(",", ":"))
//   -> int.from_bytes(hashlib.sha256(text.encode("ascii")).digest()[:8], "big") >> 1
TEST_CASE("derive: the SimpleMLP audit's five ops") {
    const auto nodes = simple_mlp_nodes();

    SUBCASE("op0: mm_default_1 + permute, origin_node mm_default_1") {
        auto h = derive_handle(op("op0", {"permute", "mm_default_1"}, "mm_default_1"), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.mm.default");
        // mm_default_1 has no trace: the one source its origins agree on (permute's).
        CHECK(h->source == at(mlp, 20));
        CHECK(h->ir_chain == std::vector<std::string>{"mm_default_1", "permute", "op0"});
        REQUIRE(h->fused_from.size() == 2);
        check_child(h->fused_from[0], std::nullopt, "aten.mm.default", "mm_default_1",
                    "1812510605327176730");
        check_child(h->fused_from[1], at(mlp, 20), "aten.permute.default", "permute",
                    "1504698486242453627");
        CHECK(h->history_shape == HistoryShape::transform_history);
        CHECK(h->transform_history.empty());
        CHECK_FALSE(h->fusion_context);
        CHECK(h->id == "436825322828373996");
    }
    SUBCASE("op1: add_tensor_1") {
        auto h = derive_handle(op("op1", {"add_tensor_1"}, "add_tensor_1"), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.add.Tensor");
        CHECK_FALSE(h->source);
        CHECK(h->ir_chain == std::vector<std::string>{"add_tensor_1", "op1"});
        CHECK(h->fused_from.empty());
        CHECK(h->transform_history.empty());
        CHECK(h->id == "6838163824539822440");
    }
    SUBCASE("op2: relu") {
        auto h = derive_handle(op("op2", {"relu"}, "relu"), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.relu.default");
        CHECK(h->source == at(mlp, 21));
        CHECK(h->ir_chain == std::vector<std::string>{"relu", "op2"});
        CHECK(h->fused_from.empty());
        CHECK(h->transform_history.empty());
        CHECK(h->id == "1398616254427131154");
    }
    SUBCASE("op3: mm_default + permute_1, origin_node mm_default") {
        auto h = derive_handle(op("op3", {"mm_default", "permute_1"}, "mm_default"), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.mm.default");
        CHECK(h->source == at(mlp, 22));
        CHECK(h->ir_chain == std::vector<std::string>{"mm_default", "permute_1", "op3"});
        REQUIRE(h->fused_from.size() == 2);
        check_child(h->fused_from[0], std::nullopt, "aten.mm.default", "mm_default",
                    "243428252796126217");
        check_child(h->fused_from[1], at(mlp, 22), "aten.permute.default", "permute_1",
                    "7559989389223279783");
        CHECK(h->transform_history.empty());
        CHECK(h->id == "6968053033586324942");
    }
    SUBCASE("op4: add_tensor") {
        auto h = derive_handle(op("op4", {"add_tensor"}, "add_tensor"), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.add.Tensor");
        CHECK_FALSE(h->source);
        CHECK(h->ir_chain == std::vector<std::string>{"add_tensor", "op4"});
        CHECK(h->fused_from.empty());
        CHECK(h->id == "5681173905792764910");
    }
}

TEST_CASE("derive: an op without origins gets no handle") {
    CHECK_FALSE(derive_handle(op("op9", {}, std::nullopt), simple_mlp_nodes()));
    CHECK_FALSE(derive_handle(op("op9", {}, "relu"), simple_mlp_nodes()));
}

TEST_CASE("derive: unknown origin names are nodes with nothing") {
    auto h = derive_handle(op("buf9", {"ghost_b", "ghost_a"}, std::nullopt), {});
    REQUIRE(h);
    CHECK_FALSE(h->aten_op);
    CHECK_FALSE(h->source);
    CHECK(h->ir_chain == std::vector<std::string>{"ghost_a", "ghost_b", "buf9"});
    REQUIRE(h->fused_from.size() == 2);
    check_child(h->fused_from[0], std::nullopt, std::nullopt, "ghost_a", "4958758684944395939");
    check_child(h->fused_from[1], std::nullopt, std::nullopt, "ghost_b", "7527875791404532142");
    CHECK(h->id == "5432744801481918811");

    // An unknown origin_node: null aten op, and the source the origins agree on.
    auto nodes = simple_mlp_nodes();
    auto g = derive_handle(op("op2", {"relu"}, "ghost"), nodes);
    REQUIRE(g);
    CHECK_FALSE(g->aten_op);
    CHECK(g->source == at(mlp, 21));
}

TEST_CASE("derive: agreement without an origin_node") {
    std::map<std::string, FxNode> nodes{
        {"a", node("aten.add.Tensor", "  File \"/w/m.py\", line 3, in f\n")},
        {"b", node("aten.add.Tensor")},
        {"c", node(std::nullopt, "  File \"/w/m.py\", line 3, in f\n")},
        {"d", node("aten.mul.Tensor", "  File \"/w/m.py\", line 4, in f\n")},
    };
    SUBCASE("nulls do not disagree") {
        auto h = derive_handle(op("buf0", {"c", "b", "a"}, std::nullopt), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.add.Tensor");
        CHECK(h->source == at("/w/m.py", 3));
        CHECK(h->ir_chain == std::vector<std::string>{"a", "b", "c", "buf0"});
        CHECK(h->fused_from.size() == 3);
    }
    SUBCASE("two distinct values: null") {
        auto h = derive_handle(op("buf0", {"a", "d"}, std::nullopt), nodes);
        REQUIRE(h);
        CHECK_FALSE(h->aten_op);
        CHECK_FALSE(h->source);
    }
    SUBCASE("an origin_node without a trace falls back only to an agreed source") {
        auto h = derive_handle(op("buf0", {"a", "b", "d"}, "b"), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.add.Tensor");
        CHECK_FALSE(h->source); // a and d disagree
    }
    SUBCASE("an origin_node's own source wins over the origins'") {
        auto h = derive_handle(op("buf0", {"a", "c", "d"}, "d"), nodes);
        REQUIRE(h);
        CHECK(h->aten_op == "aten.mul.Tensor");
        CHECK(h->source == at("/w/m.py", 4));
    }
    SUBCASE("an origin_node with a null aten op gives a null aten op") {
        auto h = derive_handle(op("buf0", {"a", "c"}, "c"), nodes);
        REQUIRE(h);
        CHECK_FALSE(h->aten_op);
        CHECK(h->source == at("/w/m.py", 3));
    }
}

TEST_CASE("derive: buffer name, repeated origins and transform history") {
    const auto nodes = simple_mlp_nodes();
    SUBCASE("an empty buffer name is not in ir_chain") {
        auto h = derive_handle(op("", {"relu"}, "relu"), nodes);
        REQUIRE(h);
        CHECK(h->ir_chain == std::vector<std::string>{"relu"});
    }
    SUBCASE("an origin listed twice is one node") {
        auto h = derive_handle(op("op2", {"relu", "relu"}, "relu"), nodes);
        REQUIRE(h);
        CHECK(h->ir_chain == std::vector<std::string>{"relu", "op2"});
        CHECK(h->fused_from.empty());
        CHECK(h->id == "1398616254427131154"); // op2's id above
    }
    SUBCASE("the op's transform history is kept and not hashed") {
        auto o = op("op2", {"relu"}, "relu");
        o.transform_history = {{"rewrite", "insert_restickify", "layout"},
                               {"fusion", "fuse", std::nullopt}};
        auto h = derive_handle(o, nodes);
        REQUIRE(h);
        CHECK(h->transform_history == o.transform_history);
        CHECK(h->history_shape == HistoryShape::transform_history);
        CHECK(h->id == "1398616254427131154"); // op2's id above
    }
}
