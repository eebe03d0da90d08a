#include "sdscprov/commands/explain.hpp"

#include "sdscprov/core/display.hpp"
#include "sdscprov/core/path.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/sidecars/derive.hpp"

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <set>
#include <sys/stat.h>
#include <system_error>

namespace sdscprov {

namespace {

std::string errno_text(int err) {
    return std::generic_category().message(err);
}

// 16 lowercase base32 characters: a bundle's provenance key (docs/profile.md).
bool is_provenance_key(std::string_view s) {
    return s.size() == 16 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
           });
}

// Whether the SDSC files of `dir` hold every id of `ids` (as some op's debug_handle_).
bool holds_handles(const KernelDir& dir, const std::vector<std::string>& ids, Scanner& scanner) {
    std::set<std::string> left(ids.begin(), ids.end());
    for (const auto& file : dir.files) {
        ScanResult scan = scanner.scan_file(file);
        if (scan.handle) {
            left.erase(scan.handle->id);
        }
    }
    return left.empty();
}

// The sidecar that has the bundle `key`, if any, and the kernel names of its directories: its
// occurrences' compiler kernel names, else `kernel` (the label's).
std::pair<const SpyreProvenance*, std::set<std::string>>
bundle_kernels(const std::string& key, const std::string& kernel,
               const std::vector<SpyreProvenance>& sidecars) {
    std::pair<const SpyreProvenance*, std::set<std::string>> out{nullptr, {}};
    for (const auto& d : sidecars) {
        if (d.identities.count(key) != 0) {
            out.first = &d;
            for (const auto& [id, occurrence] : d.occurrences) {
                if (occurrence.identity_key == key) {
                    out.second.insert(occurrence.kernel_name);
                }
            }
            break;
        }
    }
    if (out.second.empty() && !kernel.empty()) {
        out.second.insert(kernel);
    }
    return out;
}

// The directories of the bundle `key` (resolve_explain_target's KERNEL@KEY) among `named`, the
// kernel directories of its kernel names.
std::vector<KernelDir> key_directories(const std::string& key, const std::string& kernel,
                                       std::vector<KernelDir> named, const SpyreProvenance* doc,
                                       const ScanOptions& scan_options, const std::string& target,
                                       std::vector<Problem>& problems) {
    if (doc == nullptr) {
        if (kernel.empty()) {
            problems.push_back(make_problem(
                target, {}, ProblemCode::bad_argument,
                key + " is a provenance key: only torch-spyre's spyre_provenance.json (--origins) "
                      "that has it says which kernel directory holds its bundle"));
            return {};
        }
        if (named.size() > 1) {
            std::string list;
            for (const auto& d : named) {
                list += (list.empty() ? "" : ", ") + d.path;
            }
            problems.push_back(make_problem(
                target, {}, ProblemCode::bad_argument,
                key +
                    " is a provenance key: only torch-spyre's spyre_provenance.json (--origins) "
                    "says which of the kernel directories named " +
                    kernel + " holds its bundle: " + list));
            return {};
        }
        return named;
    }
    const auto& ids = doc->identities.at(key).direct_handle_ids;
    if (ids.empty()) {
        return named;
    }
    Scanner scanner(scan_options);
    std::vector<KernelDir> holding;
    for (const auto& d : named) {
        if (holds_handles(d, ids, scanner)) {
            holding.push_back(d);
        }
    }
    return holding.empty() ? named : holding;
}

} // namespace

// ---- target resolution --------------------------------------------------------------------------

namespace {

// A TARGET that names a path: its kernel directories, with the files named only.
std::vector<KernelDir> path_target(const std::string& target, const DiscoverOptions& options,
                                   std::vector<Problem>& problems,
                                   const std::function<void(Problem&&)>& on_problem) {
    std::vector<KernelDir> found;
    discover(
        {target}, options,
        [&](KernelDir&& k) {
            drop_context_files(k); // a file target: that file only
            found.push_back(std::move(k));
        },
        on_problem);
    if (found.empty()) {
        problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                        "no SDSC files under '" + target + "'"));
    }
    return found;
}

// What a TARGET that is not a path names. A profile row's label: KERNEL@DIRECTORY-NAME or
// KERNEL@KEY; a bare KEY with a sidecar; a kernel event's name (its bundle's key); else KERNEL.
struct NamedTarget {
    bool labelled = false; // KERNEL@...
    std::string name;      // the kernel name, empty for a key alone
    std::string tail;      // what follows the '@'
    std::optional<std::string> key;
};

NamedTarget named_target(const std::string& target, const std::vector<SpyreProvenance>& sidecars) {
    NamedTarget t;
    auto at = target.find('@');
    t.labelled = at != std::string::npos;
    t.name = !t.labelled ? target : target.substr(0, at);
    t.tail = !t.labelled ? "" : target.substr(at + 1);
    if (t.labelled && is_provenance_key(t.tail)) {
        t.key = t.tail;
    } else if (!t.labelled && !sidecars.empty() && is_provenance_key(target)) {
        t.key = target;
        t.name.clear();
    } else if (!t.labelled && target.starts_with("spyre_kernel_v1_") && target.size() > 33 &&
               target[target.size() - 17] == '_' &&
               is_provenance_key(std::string_view(target).substr(target.size() - 16))) {
        t.key = target.substr(target.size() - 16); // a kernel event's name: its bundle's key
        t.name.clear();
    }
    return t;
}

// Nothing under the roots answers to `target`: said with the nearest of the names `seen`.
Problem not_found(const std::string& target, const std::vector<std::string>& search_roots,
                  const std::set<std::string>& seen) {
    std::string roots;
    for (const auto& r : search_roots) {
        roots += (roots.empty() ? "'" : ", '") + r + "'";
    }
    std::vector<std::string> names(seen.begin(), seen.end());
    auto near = nearest_names(target, names);
    std::string hint;
    for (const auto& n : near) {
        hint += (hint.empty() ? "; the nearest names: " : ", ") + n;
    }
    return make_problem(target, {}, ProblemCode::bad_argument,
                        "no kernel directory named '" + target + "' under " + roots + hint);
}

} // namespace

std::vector<KernelDir>
resolve_explain_target(const std::string& target, const std::vector<std::string>& search_roots,
                       std::vector<Problem>& problems, const DiscoverOptions& options,
                       const std::vector<SpyreProvenance>& sidecars, const ScanOptions& scan) {
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
        return path_target(target, options, problems, on_problem_but_empty);
    }
    int err = errno;
    // Kernel names are identifiers: a TARGET with a '/' was meant as a path.
    if (err != ENOENT || target.find('/') != std::string::npos) {
        problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                        "cannot access: " + errno_text(err)));
        return found;
    }
    if (search_roots.empty()) {
        problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                        "no such file or directory, and no kernel cache to look "
                                        "for a kernel named '" +
                                            target + "' in"));
        return found;
    }
    const NamedTarget t = named_target(target, sidecars);
    std::pair<const SpyreProvenance*, std::set<std::string>> bundle;
    if (t.key) {
        bundle = bundle_kernels(*t.key, t.name, sidecars);
    }
    std::vector<KernelDir> named; // KERNEL@KEY: the directories of its kernel names
    std::set<std::string> seen;   // kernel and directory names (labels), for the suggestions
    discover(
        search_roots, options,
        [&](KernelDir&& k) {
            std::string dir(base_name(k.path));
            if (t.labelled) {
                seen.insert((k.kernel ? *k.kernel : dir) + "@" + dir); // as profile labels it
            } else {
                if (k.kernel) {
                    seen.insert(*k.kernel);
                }
                seen.insert(dir);
            }
            if (!t.labelled && !t.key) {
                if ((k.kernel && *k.kernel == target) || dir == target) {
                    found.push_back(std::move(k));
                }
            } else if (t.labelled && dir == t.tail) {
                found.push_back(std::move(k));
            } else if (t.key && k.kernel && bundle.second.count(*k.kernel) != 0) {
                named.push_back(std::move(k));
            }
        },
        on_problem_but_empty);
    if (found.empty() && t.key) {
        std::size_t before = problems.size();
        found =
            key_directories(*t.key, t.name, std::move(named), bundle.first, scan, target, problems);
        if (!found.empty() || problems.size() != before) {
            return found;
        }
    }
    if (found.empty()) {
        problems.push_back(not_found(target, search_roots, seen));
    }
    return found;
}

std::vector<std::string> nearest_names(std::string_view target,
                                       const std::vector<std::string>& names, std::size_t count) {
    const std::size_t limit = std::max<std::size_t>(2, target.size() / 3);
    std::vector<std::pair<std::size_t, const std::string*>> near;
    std::vector<std::size_t> row;
    std::vector<std::size_t> next;
    for (const auto& n : names) {
        std::size_t gap =
            n.size() > target.size() ? n.size() - target.size() : target.size() - n.size();
        if (gap > limit || n == target) {
            continue;
        }
        // One row of the distance table at a time; a row whose least is over the limit ends it.
        row.resize(n.size() + 1);
        next.resize(n.size() + 1);
        for (std::size_t j = 0; j <= n.size(); ++j) {
            row[j] = j;
        }
        std::size_t least = 0;
        for (std::size_t i = 1; i <= target.size() && least <= limit; ++i) {
            next[0] = i;
            least = i;
            for (std::size_t j = 1; j <= n.size(); ++j) {
                std::size_t substitute = row[j - 1] + (target[i - 1] == n[j - 1] ? 0 : 1);
                next[j] = std::min({row[j] + 1, next[j - 1] + 1, substitute});
                least = std::min(least, next[j]);
            }
            row.swap(next);
        }
        if (least <= limit && row[n.size()] <= limit) {
            near.emplace_back(row[n.size()], &n);
        }
    }
    std::sort(near.begin(), near.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : *a.second < *b.second;
    });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < near.size() && i < count; ++i) {
        out.push_back(*near[i].second);
    }
    return out;
}

// ---- explain ------------------------------------------------------------------------------------

ExplainKernel explain_kernel(const KernelDir& dir, Scanner& scanner, SourceLines& lines) {
    ExplainKernel k;
    k.dir = dir.path;
    k.kernel = dir.kernel;
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

void explain_stack_traces(ExplainKernel& kernel, const std::vector<std::string>& traces,
                          SourceLines& lines) {
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
