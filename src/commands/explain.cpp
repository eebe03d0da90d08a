#include "sdscprov/commands/explain.hpp"

#include "sdscprov/core/display.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/sidecars/derive.hpp"

#include <algorithm>
#include <cerrno>
#include <map>
#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <sys/stat.h>
#include <system_error>

namespace sdscprov {

namespace {

std::string errno_text(int err) {
    return std::generic_category().message(err);
}

// The last path component, trailing slashes ignored.
std::string_view base_name(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') {
        path.remove_suffix(1);
    }
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

} // namespace

// ---- target resolution --------------------------------------------------------------------------

std::vector<KernelDir> resolve_explain_target(const std::string& target,
                                              const std::vector<std::string>& search_roots,
                                              std::vector<Problem>& problems,
                                              const DiscoverOptions& options) {
    std::vector<KernelDir> found;
    // "Nothing found" is said once, below, in explain's own words.
    auto on_problem_but_empty = [&](Problem&& p) {
        if (p.code != ProblemCode::no_sdsc_files) {
            problems.push_back(std::move(p));
        }
    };
    if (target.empty()) {
        problems.push_back(
            make_problem(target, {}, ProblemCode::bad_argument, "the explain target is empty"));
        return found;
    }
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        discover(
            {target}, options,
            [&](KernelDir&& k) {
                drop_context_files(k); // a file target: that file only
                found.push_back(std::move(k));
            },
            on_problem_but_empty);
        if (found.empty()) {
            problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                            "no SDSC files under '" + target + "'"));
        }
        return found;
    }
    int err = errno;
    // Kernel names are identifiers: a TARGET with a '/' was meant as a path.
    if (err != ENOENT || target.find('/') != std::string::npos) {
        problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                        "cannot access: " + errno_text(err)));
        return found;
    }
    std::string roots;
    for (const auto& r : search_roots) {
        roots += (roots.empty() ? "'" : ", '") + r + "'";
    }
    if (search_roots.empty()) {
        problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                        "no such file or directory, and no kernel cache to look "
                                        "for a kernel named '" +
                                            target + "' in"));
        return found;
    }
    discover(
        search_roots, options,
        [&](KernelDir&& k) {
            if ((k.kernel && *k.kernel == target) || base_name(k.path) == target) {
                found.push_back(std::move(k));
            }
        },
        on_problem_but_empty);
    if (found.empty()) {
        problems.push_back(
            make_problem(target, {}, ProblemCode::bad_argument,
                         "no kernel directory named '" + target + "' under " + roots));
    }
    return found;
}

// ---- explain ------------------------------------------------------------------------------------

ExplainKernel explain_kernel(const KernelDir& dir, Scanner& scanner) {
    ExplainKernel k;
    k.dir = dir.path;
    k.kernel = dir.kernel;
    SourceLines lines;
    k.ops.reserve(dir.files.size());
    for (const auto& file : dir.files) {
        ScanResult scan = scanner.scan_file(file);
        ExplainOp op;
        op.file = file.path;
        op.status = scan.status;
        op.op_key = std::move(scan.op_key);
        op.opfunc = std::move(scan.opfunc);
        op.index = scan.index;
        op.handle_state = scan.handle_state;
        op.handle = std::move(scan.handle);
        op.problems = std::move(scan.problems);
        if (op.handle) {
            op.source_line_text = lines.line(op.handle->source);
            for (const auto& child : op.handle->fused_from) {
                op.fused_source_line_texts.push_back(lines.line(child.source));
            }
        }
        k.ops.push_back(std::move(op));
    }
    return k;
}

void explain_stack_traces(ExplainKernel& kernel, const std::vector<std::string>& traces) {
    SourceLines lines;
    kernel.stack_traces.clear();
    for (const auto& trace : traces) {
        ExplainTrace t;
        t.trace = trace;
        t.source = source_of_stack_trace(trace);
        t.source_line_text = lines.line(t.source);
        kernel.stack_traces.push_back(std::move(t));
    }
}

} // namespace sdscprov
