#include "sdscprov/join/bundle_dirs.hpp"

#include "sdscprov/core/path.hpp"
#include "sdscprov/walk/discover.hpp"

#include <algorithm>
#include <iterator>
#include <set>

namespace sdscprov {

bool IndexedKernelDir::named(std::string_view name) const {
    return (kernel && *kernel == name) ||
           std::find(other_kernels.begin(), other_kernels.end(), name) != other_kernels.end();
}

namespace {

std::vector<std::uint32_t> intersection(const std::vector<std::uint32_t>& a,
                                        const std::vector<std::uint32_t>& b) {
    std::vector<std::uint32_t> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

std::string id_list(const std::vector<std::string>& ids) {
    std::string s = "[";
    for (const auto& id : ids) {
        s += (s.size() > 1 ? ", " : "") + id;
    }
    return s + "]";
}

std::string dir_list(const std::vector<IndexedKernelDir>& dirs,
                     const std::vector<std::uint32_t>& chosen) {
    std::string s;
    for (auto d : chosen) {
        s += (s.empty() ? "" : ", ") + dirs[d].path;
    }
    return s.empty() ? "no directory" : s;
}

std::string name_list(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) {
        s += (s.empty() ? "" : "+") + n;
    }
    return s;
}

// The directories holding the handles (`held`: the caches have one of them): those holding all
// of them, else, spread over several, every one holding one.
std::vector<std::uint32_t> holding_dirs(const std::vector<std::string>& ids,
                                        const HandleHolders& holders, bool& held) {
    std::vector<std::uint32_t> holding;
    held = false;
    for (const auto& id : ids) {
        if (const auto* found = holders(id)) {
            holding = held ? intersection(holding, *found) : *found;
            held = true;
        }
    }
    if (held && holding.empty()) {
        std::set<std::uint32_t> all;
        for (const auto& id : ids) {
            if (const auto* found = holders(id)) {
                all.insert(found->begin(), found->end());
            }
        }
        holding.assign(all.begin(), all.end());
    }
    return holding;
}

std::vector<std::uint32_t> dirs_named(const std::vector<IndexedKernelDir>& dirs,
                                      const std::vector<std::string>& names,
                                      const NamedDirs& named) {
    if (named) {
        std::set<std::uint32_t> all;
        for (const auto& n : names) {
            if (const auto* found = named(n)) {
                all.insert(found->begin(), found->end());
            }
        }
        return {all.begin(), all.end()};
    }
    std::vector<std::uint32_t> found;
    for (std::uint32_t i = 0; i < dirs.size(); ++i) {
        if (std::any_of(names.begin(), names.end(),
                        [&](const std::string& n) { return dirs[i].named(n); })) {
            found.push_back(i);
        }
    }
    return found;
}

std::vector<std::string> names_of(const std::vector<IndexedKernelDir>& dirs,
                                  const std::vector<std::uint32_t>& chosen) {
    std::set<std::string> names;
    for (auto d : chosen) {
        if (dirs[d].kernel) {
            names.insert(*dirs[d].kernel);
        }
    }
    return {names.begin(), names.end()};
}

// The event's prefix: the directories it names whose kernel agrees, else a note and nothing.
std::vector<std::uint32_t> prefixed_dirs(const std::string& prefix,
                                         const std::vector<IndexedKernelDir>& dirs,
                                         const std::vector<std::string>& names,
                                         std::vector<BundleDirNote>& notes) {
    std::vector<std::uint32_t> with;
    std::vector<std::uint32_t> agreeing;
    for (std::uint32_t i = 0; i < dirs.size(); ++i) {
        auto p = dir_prefix_of(base_name(dirs[i].path));
        if (!p || *p != prefix) {
            continue;
        }
        with.push_back(i);
        if (names.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& n) {
                return dirs[i].named(n);
            })) {
            agreeing.push_back(i);
        }
    }
    if (with.empty()) {
        notes.push_back({ProblemCode::bad_bundle_dir_prefix,
                         "args.sdsc_bundle_dir_prefix '" + prefix +
                             "' names no kernel directory of the caches: the key's directories "
                             "are used"});
    } else if (agreeing.empty()) {
        notes.push_back({ProblemCode::bad_bundle_dir_prefix,
                         "args.sdsc_bundle_dir_prefix '" + prefix + "' names " +
                             dir_list(dirs, with) + ", not a directory of kernel " +
                             name_list(names) + ": the key's directories are used"});
    }
    return agreeing;
}

} // namespace

BundleDirs resolve_bundle_dirs(const BundleDirQuery& query,
                               const std::vector<IndexedKernelDir>& dirs,
                               const HandleHolders& holders, const NamedDirs& named) {
    BundleDirs out;
    bool held = false;
    std::vector<std::uint32_t> holding = holding_dirs(query.handle_ids, holders, held);
    if (query.sidecar) {
        std::set<std::string> unique(query.sidecar_kernels.begin(), query.sidecar_kernels.end());
        out.kernel_names.assign(unique.begin(), unique.end());
        std::vector<std::uint32_t> by_name = dirs_named(dirs, out.kernel_names, named);
        if (by_name.empty() || !held) {
            out.dirs = held ? holding : by_name;
        } else {
            out.dirs = intersection(by_name, holding);
            if (out.dirs.empty()) {
                out.notes.push_back(
                    {ProblemCode::sources_disagree,
                     "the sidecar's kernel " + name_list(out.kernel_names) + " is in " +
                         dir_list(dirs, by_name) + ", whose SDSC files do not hold its handles " +
                         id_list(query.handle_ids) + "; " + dir_list(dirs, holding) +
                         " do: those are used"});
                out.dirs = holding;
            }
        }
    } else {
        out.dirs = holding;
        out.kernel_names = names_of(dirs, out.dirs);
    }
    if (query.dir_prefix) {
        auto chosen = prefixed_dirs(*query.dir_prefix, dirs, out.kernel_names, out.notes);
        if (!chosen.empty()) {
            out.dirs = std::move(chosen);
            out.by_prefix = true;
            if (!query.sidecar) {
                out.kernel_names = names_of(dirs, out.dirs);
            }
        }
    }
    return out;
}

} // namespace sdscprov
