#include "sdscprov/commands/explain_run.hpp"

#include "sdscprov/sidecars/upstream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace sdscprov {

namespace {

bool any_error(const std::vector<Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const Problem& p) { return p.severity == Severity::error; });
}

struct Inputs {
    std::vector<UpstreamMappings> mappings;
    std::vector<SpyreProvenance> sidecars;
};

// The lines of the targets' file, empty ones left out; false (a problem) when it cannot be read.
bool read_targets(const std::string& path, std::vector<std::string>& targets,
                  std::vector<Problem>& problems) {
    std::ifstream file;
    if (path != "-") {
        file.open(path, std::ios::binary);
        if (!file) {
            problems.push_back(make_problem(path, {}, ProblemCode::io_error,
                                            std::string("cannot read: ") + std::strerror(errno)));
            return false;
        }
    }
    std::istream& in = path == "-" ? std::cin : file;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (!line.empty()) {
            targets.push_back(std::move(line));
        }
    }
    if (in.bad()) {
        problems.push_back(make_problem(path, {}, ProblemCode::io_error,
                                        std::string("error while reading: ") +
                                            std::strerror(errno)));
        return false;
    }
    return true;
}

Inputs read_inputs(const ExplainRunOptions& o, std::vector<Problem>& problems) {
    Inputs in;
    for (const auto& path : o.mappings) {
        auto read = read_upstream_mappings(path, o.max_file_size);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.mappings) {
            in.mappings.push_back(std::move(*read.mappings));
        }
    }
    for (const auto& path : o.origins) {
        auto read = read_spyre_provenance(path, o.max_file_size);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.doc) {
            in.sidecars.push_back(std::move(*read.doc));
        }
    }
    return in;
}

// The FX nodes and stack traces of `kernel` from the mappings (and, for a bundle in no directory,
// from its sidecar's upstream projections).
void add_upstream(ExplainKernel& k, const std::vector<UpstreamMappings>& mappings,
                  SourceLines& lines) {
    if (!k.kernel || mappings.empty()) {
        return;
    }
    auto upstream = upstream_kernel(mappings, *k.kernel);
    k.pre_grad_nodes = std::move(upstream.pre_grad_nodes);
    k.post_grad_nodes = std::move(upstream.post_grad_nodes);
    explain_stack_traces(k, upstream.stack_traces, lines);
}

// A bundle in no kernel directory: its direct handles as the sidecar holds them, one op each.
ExplainKernel dirless_kernel(ExplainBundle bundle, const Inputs& in, SourceLines& lines) {
    ExplainKernel k;
    const SpyreProvenance* doc = nullptr;
    for (const auto& d : in.sidecars) {
        if (d.path == bundle.sidecar && d.identities.count(bundle.key) != 0) {
            doc = &d;
            break;
        }
    }
    if (doc != nullptr) {
        for (const auto& [id, occurrence] : doc->occurrences) {
            if (occurrence.identity_key == bundle.key && !k.kernel) {
                k.kernel = occurrence.kernel_name;
            }
        }
        for (const auto& id : doc->identities.at(bundle.key).direct_handle_ids) {
            ExplainOp op;
            op.status = FileStatus::ok;
            op.handle_state = HandleState::populated;
            op.handle = expand_handle(*doc, id);
            op.source_line_text = lines.line(op.handle->source);
            for (const auto& child : op.handle->fused_from) {
                op.fused_source_line_texts.push_back(lines.line(child.source));
            }
            k.ops.push_back(std::move(op));
        }
        std::vector<UpstreamMappings> mappings = in.mappings;
        for (auto& m : spyre_upstream(*doc)) {
            mappings.push_back(std::move(m));
        }
        add_upstream(k, mappings, lines);
    }
    k.bundle = std::move(bundle);
    return k;
}

} // namespace

ExplainRunResult explain(const ExplainRunOptions& o, const ExplainRunCallbacks& callbacks) {
    ExplainRunResult result;
    std::vector<std::string> targets = o.targets;
    if (!o.targets_from.empty() && !read_targets(o.targets_from, targets, result.problems)) {
        result.stopped = "the targets could not be read: nothing explained";
        result.failed = true;
        return result;
    }
    Inputs in = read_inputs(o, result.problems);
    if (any_error(result.problems)) {
        result.stopped = "a mapping or sidecar could not be used: nothing explained";
        result.failed = true;
        return result;
    }
    ScanOptions scan;
    scan.max_file_size = o.max_file_size;
    scan.fstat_before_read = false;
    ExplainCaches caches(o.roots.empty() ? default_cache_roots() : o.roots, o.discover, scan);
    Scanner scanner(scan);
    SourceLines lines(o.source_text);
    auto emit = [&](ExplainKernel& k) {
        ++result.kernels;
        if (callbacks.kernel) {
            callbacks.kernel(k);
        }
    };
    for (const auto& target : targets) {
        std::optional<ExplainBundle> dirless;
        auto dirs = resolve_explain_target(target, caches, result.problems, in.sidecars, &dirless);
        if (dirless) {
            ExplainKernel k = dirless_kernel(std::move(*dirless), in, lines);
            emit(k);
            continue;
        }
        result.failed |= dirs.empty();
        if (dirs.size() > 1 && !explain_label(target, !in.sidecars.empty()) &&
            target.find('/') == std::string::npos && ::access(target.c_str(), F_OK) != 0) {
            result.by_name.push_back({target, dirs.size()});
        }
        for (const auto& dir : dirs) {
            ExplainKernel k = explain_kernel(dir, scanner, lines);
            add_upstream(k, in.mappings, lines);
            for (const auto& op : k.ops) {
                result.failed |= any_error(op.problems);
                result.file_problems.insert(result.file_problems.end(), op.problems.begin(),
                                            op.problems.end());
            }
            emit(k);
        }
    }
    result.failed |= any_error(result.problems);
    result.source_text = lines.note();
    return result;
}

} // namespace sdscprov
