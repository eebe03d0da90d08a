#include "sdscprov/commands/explain.hpp"

#include "sdscprov/core/display.hpp"
#include "sdscprov/core/path.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/join/bundle_dirs.hpp"
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

std::string path_list(const std::vector<std::string>& paths) {
    std::string list;
    for (const auto& p : paths) {
        list += (list.empty() ? "'" : ", '") + p + "'";
    }
    return list;
}

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

// Nothing under the roots answers to `target`: said with the nearest of the names `seen`.
Problem not_found(const std::string& target, const std::vector<std::string>& search_roots,
                  const std::set<std::string>& seen) {
    std::vector<std::string> names(seen.begin(), seen.end());
    auto near = nearest_names(target, names);
    std::string hint;
    for (const auto& n : near) {
        hint += (hint.empty() ? "; the nearest names: " : ", ") + n;
    }
    return make_problem(target, {}, ProblemCode::bad_argument,
                        "no kernel directory named '" + target + "' under " +
                            path_list(search_roots) + hint);
}

// The sidecar that has the bundle `key`, if any.
const SpyreProvenance* sidecar_of(const std::string& key,
                                  const std::vector<SpyreProvenance>& sidecars) {
    for (const auto& d : sidecars) {
        if (d.identities.count(key) != 0) {
            return &d;
        }
    }
    return nullptr;
}

// The directories of the bundle `key` of the sidecar `doc`, as profile pairs it.
std::vector<KernelDir> sidecar_bundle(const std::string& key, const SpyreProvenance& doc,
                                      ExplainCaches& caches, std::vector<Problem>& problems,
                                      std::optional<ExplainBundle>* dirless) {
    const auto& identity = doc.identities.at(key);
    BundleDirQuery query;
    query.handle_ids = identity.direct_handle_ids;
    query.sidecar = true;
    for (const auto& [id, occurrence] : doc.occurrences) {
        if (occurrence.identity_key == key) {
            query.sidecar_kernels.push_back(occurrence.kernel_name);
        }
    }
    const std::vector<KernelDir>& all = caches.dirs(problems);
    const HandleIndex& index = caches.index(problems);
    BundleDirs where = resolve_bundle_dirs(query, index.dirs, index.holders(), index.named_dirs());
    std::vector<KernelDir> found;
    for (auto d : where.dirs) {
        found.push_back(all[d]); // the index is of the same walk, in its order
    }
    if (found.empty() && dirless != nullptr) {
        ExplainBundle b;
        b.key = key;
        b.sidecar = doc.path;
        b.aten_ops = identity.aten_ops;
        b.looked_in = caches.roots();
        dirless->emplace(std::move(b));
    }
    return found;
}

// KERNEL@KEY without a sidecar that has KEY: KERNEL's one directory, else a problem.
std::vector<KernelDir> key_without_sidecar(const std::string& target, const ExplainLabel& t,
                                           ExplainCaches& caches, std::vector<Problem>& problems,
                                           bool any_sidecar) {
    const std::string& key = *t.key;
    if (t.name.empty()) {
        problems.push_back(make_problem(
            target, {}, ProblemCode::bad_argument,
            key + (any_sidecar ? " is in no sidecar given" : " is a provenance key") +
                ": only torch-spyre's spyre_provenance.json (--origins) that has it says which "
                "kernel directory holds its bundle"));
        return {};
    }
    std::vector<KernelDir> named;
    for (const auto& k : caches.dirs(problems)) {
        if (k.kernel && *k.kernel == t.name) {
            named.push_back(k);
        }
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
                t.name + " holds its bundle: " + list));
        return {};
    }
    return named;
}

bool named_by(const KernelDir& k, const std::string& name) {
    return (k.kernel && *k.kernel == name) ||
           std::find(k.other_kernels.begin(), k.other_kernels.end(), name) !=
               k.other_kernels.end();
}

// A kernel name or a label: looked up in the caches.
std::vector<KernelDir> named_target(const std::string& target,
                                    const std::optional<ExplainLabel>& label,
                                    ExplainCaches& caches, std::vector<Problem>& problems,
                                    const std::vector<SpyreProvenance>& sidecars,
                                    std::optional<ExplainBundle>* dirless) {
    std::vector<KernelDir> found;
    const bool labelled = label && !label->tail.empty();
    for (const auto& k : caches.dirs(problems)) {
        std::string_view dir = base_name(k.path);
        if (labelled ? dir == label->tail : !label && (named_by(k, target) || dir == target)) {
            found.push_back(k);
            if (labelled && !found.back().kernel && !label->name.empty()) {
                found.back().kernel = label->name; // a directory named by its key: the label's
            }
        }
    }
    if (found.empty() && label && label->key) {
        std::size_t before = problems.size();
        if (const auto* doc = sidecar_of(*label->key, sidecars)) {
            found = sidecar_bundle(*label->key, *doc, caches, problems, dirless);
            if (found.empty() && dirless != nullptr && *dirless) {
                return found;
            }

        } else {
            found = key_without_sidecar(target, *label, caches, problems, !sidecars.empty());
        }
        if (!found.empty() || problems.size() != before) {
            return found;
        }
    }
    if (found.empty()) {
        std::set<std::string> seen; // kernel and directory names (labels), for the suggestions
        for (const auto& k : caches.dirs(problems)) {
            std::string dir(base_name(k.path));
            std::string kernel = k.kernel ? *k.kernel : dir;
            if (labelled) {
                seen.insert(kernel + "@" + dir); // as profile labels it
            } else {
                seen.insert(kernel);
                seen.insert(dir);
            }
        }
        problems.push_back(not_found(target, caches.roots(), seen));
    }
    return found;
}

} // namespace

std::optional<ExplainLabel> explain_label(const std::string& target, bool with_sidecars) {
    if (target.find('/') != std::string::npos) {
        return std::nullopt;
    }
    ExplainLabel t;
    auto at = target.find('@');
    if (at != std::string::npos) {
        t.name = target.substr(0, at);
        t.tail = target.substr(at + 1);
        if (is_provenance_key(t.tail)) {
            t.key = t.tail;
        }
        return t;
    }
    if (with_sidecars && is_provenance_key(target)) {
        t.key = target;
        return t;
    }
    if (target.starts_with("spyre_kernel_v1_") && target.size() > 33 &&
        target[target.size() - 17] == '_' &&
        is_provenance_key(std::string_view(target).substr(target.size() - 16))) {
        t.key = target.substr(target.size() - 16); // a kernel event's name: its bundle's key
        return t;
    }
    return std::nullopt;
}

ExplainCaches::ExplainCaches(std::vector<std::string> roots, DiscoverOptions discover,
                             ScanOptions scan)
    : roots_(std::move(roots)), discover_(std::move(discover)), scan_(scan) {}

const std::vector<KernelDir>& ExplainCaches::dirs(std::vector<Problem>& problems) {
    if (!dirs_) {
        dirs_.emplace();
        discover(
            roots_, discover_, [&](KernelDir&& k) { dirs_->push_back(std::move(k)); },
            [&](Problem&& p) {
                // "Nothing found" is said once, in explain's own words.
                if (p.code != ProblemCode::no_sdsc_files) {
                    problems.push_back(std::move(p));
                }
            });
    }
    return *dirs_;
}

const HandleIndex& ExplainCaches::index(std::vector<Problem>& problems) {
    if (!index_) {
        HandleIndexOptions options;
        options.discover = discover_;
        options.max_file_size = scan_.max_file_size;
        auto read = index_kernel_dirs(dirs(problems), options);
        index_.emplace(std::move(read.index)); // the files' problems are explain's to say
    }
    return *index_;
}

std::vector<KernelDir> resolve_explain_target(const std::string& target, ExplainCaches& caches,
                                              std::vector<Problem>& problems,
                                              const std::vector<SpyreProvenance>& sidecars,
                                              std::optional<ExplainBundle>* dirless) {
    if (target.empty()) {
        problems.push_back(
            make_problem(target, {}, ProblemCode::bad_argument, "the explain target is empty"));
        return {};
    }
    const std::optional<ExplainLabel> label = explain_label(target, !sidecars.empty());
    if (!label) {
        struct stat st {};
        if (::stat(target.c_str(), &st) == 0) {
            auto on_problem = [&](Problem&& p) {
                if (p.code != ProblemCode::no_sdsc_files) {
                    problems.push_back(std::move(p));
                }
            };
            return path_target(target, caches.discover_options(), problems, on_problem);
        }
        int err = errno;
        // Kernel names are identifiers: a TARGET with a '/' was meant as a path.
        if ((err != ENOENT && err != ENAMETOOLONG) || target.find('/') != std::string::npos) {
            problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                            "cannot access: " + errno_text(err)));
            return {};
        }
    }
    if (caches.roots().empty()) {
        problems.push_back(make_problem(target, {}, ProblemCode::bad_argument,
                                        "no such file or directory, and no kernel cache to look "
                                        "for a kernel named '" +
                                            target + "' in"));
        return {};
    }
    return named_target(target, label, caches, problems, sidecars, dirless);
}

std::vector<KernelDir>
resolve_explain_target(const std::string& target, const std::vector<std::string>& search_roots,
                       std::vector<Problem>& problems, const DiscoverOptions& options,
                       const std::vector<SpyreProvenance>& sidecars, const ScanOptions& scan) {
    ExplainCaches caches(search_roots, options, scan);
    return resolve_explain_target(target, caches, problems, sidecars);
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
