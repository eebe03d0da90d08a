#include "sdscprov/sidecars/origins.hpp"

#include "sidecars/located_json.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <simdjson.h>

namespace sdscprov {

namespace {

using simdjson::dom::element;

constexpr std::int64_t supported_version = 1;

// Reads the map from a parsed document, walking it in pre-order beside the value locations so
// that every rejected value is reported at its line and column.
class OriginsParser : public detail::LocatedJsonReader {
public:
    OriginsParser(std::string path, std::string_view bytes)
        : LocatedJsonReader(std::move(path), bytes, ProblemCode::bad_origins) {}

    std::optional<OriginsMap> read(const element& root) {
        OriginsMap map;
        map.path = path_;
        simdjson::dom::object obj;
        if (root.get(obj) != simdjson::SUCCESS) {
            error(0, false, "an origins map is a JSON object");
            return std::nullopt;
        }
        bool has_version = false;
        bool has_nodes = false;
        bool has_kernels = false;
        members(obj, 0, [&](std::string_view key, const element& value, std::size_t at) {
            if (key == "sdscprov_origins") {
                has_version = true;
                std::int64_t version = 0;
                if (value.get(version) != simdjson::SUCCESS || version != supported_version) {
                    error(at, false,
                          "unsupported origins map version (this sdscprov reads version 1)");
                }
            } else if (key == "nodes") {
                has_nodes = true;
                read_nodes(value, at, map.nodes);
            } else if (key == "kernels") {
                has_kernels = true;
                read_kernels(value, at, map.kernels);
            } else {
                unknown(key, at, "the origins map", "sdscprov_origins, nodes, kernels");
            }
        });
        if (!has_version) {
            error(0, false,
                  "missing member 'sdscprov_origins' (the map's version, 1): not an origins map?");
        }
        if (!has_nodes) {
            error(0, false, "missing member 'nodes'");
        }
        if (!has_kernels) {
            error(0, false, "missing member 'kernels'");
        }
        check_references(map);
        if (any_error()) {
            return std::nullopt;
        }
        return map;
    }

private:
    void read_nodes(const element& e, std::size_t at, std::map<std::string, FxNode>& nodes) {
        simdjson::dom::object obj;
        if (!object(e, at, "'nodes'", obj)) {
            return;
        }
        members(obj, at, [&](std::string_view name, const element& value, std::size_t node_at) {
            simdjson::dom::object node_obj;
            if (!object(value, node_at, "node '" + std::string(name) + "'", node_obj)) {
                return;
            }
            FxNode node;
            members(node_obj, node_at,
                    [&](std::string_view key, const element& v, std::size_t member_at) {
                        if (key == "original_aten") {
                            optional_string(v, member_at, "'original_aten'", node.original_aten);
                        } else if (key == "stack_trace") {
                            optional_string(v, member_at, "'stack_trace'", node.stack_trace);
                        } else if (key == "nn_module_stack" || key == "source_fn_stack" ||
                                   key == "from_node" || key == "target") {
                            const auto& loc = locs_[member_at];
                            node.other_meta.emplace(
                                key, std::string(bytes_.substr(loc.value, loc.end - loc.value)));
                        } else {
                            unknown(key, member_at, "node '" + std::string(name) + "'",
                                    "original_aten, stack_trace, nn_module_stack, "
                                    "source_fn_stack, from_node, target");
                        }
                    });
            nodes.emplace(std::string(name), std::move(node));
        });
    }

    void read_kernels(const element& e, std::size_t at, std::vector<OriginsKernel>& kernels) {
        simdjson::dom::array arr;
        if (!array(e, at, "'kernels'", arr)) {
            return;
        }
        elements(arr, at, [&](const element& value, std::size_t kernel_at, std::size_t index) {
            std::string where = "kernels[" + std::to_string(index) + "]";
            simdjson::dom::object obj;
            if (!object(value, kernel_at, where, obj)) {
                return;
            }
            OriginsKernel kernel;
            kernel.pos = position(kernel_at, false);
            bool has_name = false;
            bool has_ops = false;
            members(obj, kernel_at, [&](std::string_view key, const element& v, std::size_t m) {
                if (key == "name") {
                    has_name = string(v, m, "'name'", kernel.name);
                } else if (key == "dir") {
                    std::string dir;
                    if (string(v, m, "'dir'", dir)) {
                        if (dir.empty() || dir.find('/') != std::string::npos) {
                            error(m, false,
                                  "'dir' is the kernel directory's own name, without '/'");
                        }
                        kernel.dir = std::move(dir);
                    }
                } else if (key == "metadata") {
                    std::string metadata;
                    if (string(v, m, "'metadata'", metadata)) {
                        kernel.metadata = std::move(metadata);
                    }
                } else if (key == "ops") {
                    has_ops = true;
                    read_ops(v, m, where, kernel.ops);
                } else {
                    unknown(key, m, where, "name, dir, metadata, ops");
                }
            });
            if (!has_name) {
                error(kernel_at, false, where + " has no 'name'");
            }
            if (!has_ops) {
                error(kernel_at, false, where + " has no 'ops'");
            }
            kernels.push_back(std::move(kernel));
        });
    }

    void read_ops(const element& e, std::size_t at, const std::string& kernel_where,
                  std::vector<OriginsOp>& ops) {
        simdjson::dom::array arr;
        if (!array(e, at, "'ops'", arr)) {
            return;
        }
        elements(arr, at, [&](const element& value, std::size_t op_at, std::size_t index) {
            std::string where = kernel_where + ".ops[" + std::to_string(index) + "]";
            simdjson::dom::object obj;
            if (!object(value, op_at, where, obj)) {
                return;
            }
            OriginsOp op;
            op.pos = position(op_at, false);
            bool has_opfunc = false;
            bool has_buffer = false;
            bool has_origins = false;
            members(obj, op_at, [&](std::string_view key, const element& v, std::size_t m) {
                if (key == "opfunc") {
                    has_opfunc = string(v, m, "'opfunc'", op.opfunc);
                } else if (key == "buffer") {
                    has_buffer = string(v, m, "'buffer'", op.buffer);
                } else if (key == "origins") {
                    has_origins = true;
                    simdjson::dom::array names;
                    if (array(v, m, "'origins'", names)) {
                        elements(names, m, [&](const element& n, std::size_t n_at, std::size_t) {
                            std::string name;
                            if (string(n, n_at, "an origin", name)) {
                                op.origins.push_back(std::move(name));
                            }
                        });
                    }
                } else if (key == "origin_node") {
                    optional_string(v, m, "'origin_node'", op.origin_node);
                } else if (key == "transform_history") {
                    read_history(v, m, op.transform_history);
                } else if (key == "spec_path") {
                    simdjson::dom::array path;
                    if (array(v, m, "'spec_path'", path)) {
                        elements(path, m, [&](const element& n, std::size_t n_at, std::size_t) {
                            std::uint64_t i = 0;
                            if (n.get(i) != simdjson::SUCCESS) {
                                error(n_at, false, "'spec_path' holds non-negative integers");
                            } else {
                                op.spec_path.push_back(i);
                            }
                        });
                        if (op.spec_path.empty()) {
                            error(m, false, "'spec_path' must not be empty");
                        }
                    }
                } else {
                    unknown(key, m, where,
                            "opfunc, buffer, origins, origin_node, transform_history, spec_path");
                }
            });
            if (!has_opfunc || !has_buffer || !has_origins) {
                error(op_at, false,
                      where + " needs 'opfunc', 'buffer' and 'origins' (an empty list when the "
                              "op has no FX origin)");
            }
            ops.push_back(std::move(op));
        });
        // Spec paths place each op; without them the list order does. An entry that mixes the
        // two cannot be placed.
        auto placed = [](const OriginsOp& op) { return !op.spec_path.empty(); };
        auto odd = std::find_if(ops.begin(), ops.end(),
                                [&](const OriginsOp& op) { return placed(op) != placed(ops[0]); });
        if (odd != ops.end()) {
            auto i = static_cast<std::size_t>(odd - ops.begin());
            problems.push_back(make_problem(
                path_, odd->pos, code_,
                kernel_where + ".ops[" + std::to_string(i) + "] " +
                    (placed(*odd) ? "has" : "has no") + " 'spec_path' but " + kernel_where +
                    ".ops[0] " + (placed(ops[0]) ? "has one" : "has none") +
                    ": give every op of an entry its spec_path (the entry may then list only "
                    "some OpSpecs), or none (the entry lists every OpSpec in order)"));
        }
        for (std::size_t i = 0; i < ops.size(); ++i) {
            for (std::size_t j = 0; j < i && placed(ops[i]); ++j) {
                if (ops[j].spec_path == ops[i].spec_path) {
                    problems.push_back(make_problem(path_, ops[i].pos, code_,
                                                    kernel_where + ".ops[" + std::to_string(i) +
                                                        "] has the spec_path of " + kernel_where +
                                                        ".ops[" + std::to_string(j) +
                                                        "]: one OpSpec, two entries"));
                    break;
                }
            }
        }
    }

    void read_history(const element& e, std::size_t at, std::vector<TransformStep>& history) {
        simdjson::dom::array arr;
        if (!array(e, at, "'transform_history'", arr)) {
            return;
        }
        elements(arr, at, [&](const element& value, std::size_t step_at, std::size_t) {
            simdjson::dom::object obj;
            if (!object(value, step_at, "a transform_history step", obj)) {
                return;
            }
            TransformStep step;
            int seen = 0;
            members(obj, step_at, [&](std::string_view key, const element& v, std::size_t m) {
                if (key == "kind") {
                    seen |= string(v, m, "'kind'", step.kind) ? 1 : 0;
                } else if (key == "pass_name") {
                    seen |= string(v, m, "'pass_name'", step.pass_name) ? 2 : 0;
                } else if (key == "reason") {
                    seen |= optional_string(v, m, "'reason'", step.reason) ? 4 : 0;
                } else {
                    unknown(key, m, "a transform_history step", "kind, pass_name, reason");
                }
            });
            if (seen != 7) {
                error(step_at, false,
                      "a transform_history step needs 'kind', 'pass_name' and 'reason'");
            }
            history.push_back(std::move(step));
        });
    }

    // Meaning: origins and origin_node name nodes of the map.
    void check_references(const OriginsMap& map) {
        for (const auto& kernel : map.kernels) {
            for (const auto& op : kernel.ops) {
                for (const auto& origin : op.origins) {
                    if (map.nodes.count(origin) == 0) {
                        warning(op.pos, "origin '" + origin + "' of kernel '" + kernel.name +
                                            "' is not in 'nodes': no ATen op or source for it");
                    }
                }
                if (op.origin_node && std::find(op.origins.begin(), op.origins.end(),
                                                *op.origin_node) == op.origins.end()) {
                    warning(op.pos, "origin_node '" + *op.origin_node + "' of kernel '" +
                                        kernel.name + "' is not one of its origins");
                }
            }
        }
    }
};

} // namespace

namespace {

// `bytes` must be followed by simdjson::SIMDJSON_PADDING readable bytes.
OriginsReadResult parse_padded(const std::string& path, std::string_view bytes) {
    OriginsReadResult result;
    simdjson::dom::parser parser;
    element root;
    if (!detail::parse_located(parser, path, bytes, root, result.problems)) {
        return result;
    }
    OriginsParser reader(path, bytes);
    result.map = reader.read(root);
    result.problems = std::move(reader.problems);
    return result;
}

} // namespace

OriginsReadResult parse_origins_map(const std::string& path, std::string_view bytes) {
    simdjson::padded_string padded(bytes);
    return parse_padded(path, std::string_view(padded.data(), padded.size()));
}

OriginsReadResult read_origins_map(const std::string& path, std::uint64_t max_size) {
    OriginsReadResult result;
    auto content = detail::load_padded(path, "origins map", max_size, result.problems);
    if (!content) {
        return result;
    }
    return parse_padded(path, std::string_view(content->data(), content->size()));
}

} // namespace sdscprov
