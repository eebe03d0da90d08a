#include "sdscprov/join/handle_index.hpp"

#include "sdscprov/sdsc/scan.hpp"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <simdjson.h>
#include <thread>

namespace sdscprov {

const IndexedHandle* HandleIndex::find(std::string_view id) const {
    auto it = handles.find(std::string(id));
    return it == handles.end() ? nullptr : &it->second;
}

NamedDirs HandleIndex::named_dirs() const {
    return [this](std::string_view name) -> const std::vector<std::uint32_t>* {
        auto it = by_kernel.find(std::string(name));
        return it == by_kernel.end() ? nullptr : &it->second;
    };
}

HandleHolders HandleIndex::holders() const {
    return [this](std::string_view id) -> const std::vector<std::uint32_t>* {
        const auto* found = find(id);
        return found == nullptr ? nullptr : &found->dirs;
    };
}

namespace {

struct FoundHandle {
    DebugHandle handle;
    std::string file;
};

struct DirResult {
    std::vector<FoundHandle> handles;
    std::vector<Problem> problems;
};

// How many times `needle` occurs in `bytes`.
std::size_t occurrences(std::string_view bytes, std::string_view needle) {
    std::size_t n = 0;
    for (auto at = bytes.find(needle); at != std::string_view::npos;
         at = bytes.find(needle, at + needle.size())) {
        ++n;
    }
    return n;
}

// Every populated `debug_handle_` member below `root`, in document order (an explicit stack: the
// nesting is the file's to choose).
void nested_handles(const simdjson::dom::element& root, const std::string& file,
                    std::vector<FoundHandle>& out) {
    std::vector<simdjson::dom::element> stack{root};
    std::vector<simdjson::dom::element> children;
    while (!stack.empty()) {
        auto e = stack.back();
        stack.pop_back();
        children.clear();
        if (e.is_object()) {
            for (auto [key, value] : simdjson::dom::object(e)) {
                if (key == "debug_handle_" && value.is_object()) {
                    auto read = read_debug_handle(value);
                    if (read.handle) {
                        out.push_back({std::move(*read.handle), file});
                    }
                    continue;
                }
                children.push_back(value);
            }
        } else if (e.is_array()) {
            for (auto value : simdjson::dom::array(e)) {
                children.push_back(value);
            }
        }
        stack.insert(stack.end(), children.rbegin(), children.rend());
    }
}

DirResult read_dir(const KernelDir& dir, Scanner& scanner, simdjson::dom::parser& parser) {
    DirResult result;
    for (const auto& file : dir.files) {
        ScanResult scan = scanner.scan_file(file);
        // Nested handles are what this index reads below the op's: no problem here.
        std::copy_if(scan.problems.begin(), scan.problems.end(),
                     std::back_inserter(result.problems),
                     [](const Problem& p) { return p.code != ProblemCode::nested_handle; });
        if (scan.status != FileStatus::ok) {
            continue;
        }
        std::string_view bytes = scanner.bytes();
        // The op object's handle is the scanner's; a file with other debug_handle_ members is
        // walked whole for them.
        std::size_t members = occurrences(bytes, "\"debug_handle_\"");
        if (members <= (scan.handle_member ? 1U : 0U)) {
            if (scan.handle) {
                result.handles.push_back({std::move(*scan.handle), file.path});
            }
            continue;
        }
        simdjson::dom::element root;
        if (!parser.parse(bytes.data(), bytes.size()).get(root)) {
            nested_handles(root, file.path, result.handles);
        }
    }
    return result;
}

} // namespace

HandleIndexResult index_handles(const std::vector<std::string>& roots,
                                const HandleIndexOptions& options) {
    std::vector<KernelDir> dirs;
    std::vector<Problem> walk_problems;
    discover(
        roots, options.discover, [&](KernelDir&& k) { dirs.push_back(std::move(k)); },
        [&](Problem&& p) { walk_problems.push_back(std::move(p)); });
    return index_kernel_dirs(dirs, options, std::move(walk_problems));
}

HandleIndexResult index_kernel_dirs(const std::vector<KernelDir>& dirs,
                                    const HandleIndexOptions& options,
                                    std::vector<Problem> walk_problems) {
    HandleIndexResult result;
    std::vector<DirResult> read(dirs.size());
    unsigned jobs =
        options.jobs != 0 ? options.jobs : std::max(1U, std::thread::hardware_concurrency());
    jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(dirs.size(), 1)));
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        ScanOptions scan_options;
        scan_options.max_file_size = options.max_file_size;
        scan_options.fstat_before_read = false;
        Scanner scanner(scan_options);
        simdjson::dom::parser parser;
        for (std::size_t i; (i = next.fetch_add(1)) < dirs.size();) {
            read[i] = read_dir(dirs[i], scanner, parser);
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < jobs; ++t) {
        threads.emplace_back(worker);
    }
    worker();
    for (auto& t : threads) {
        t.join();
    }

    result.problems = std::move(walk_problems);
    HandleIndex& index = result.index;
    for (std::uint32_t d = 0; d < dirs.size(); ++d) {
        index.dirs.push_back({dirs[d].path, dirs[d].kernel, dirs[d].other_kernels});
        if (dirs[d].kernel) {
            index.by_kernel[*dirs[d].kernel].push_back(d);
        }
        for (const auto& other : dirs[d].other_kernels) {
            index.by_kernel[other].push_back(d);
        }
        for (auto& p : read[d].problems) {
            result.problems.push_back(std::move(p));
        }
        for (auto& found : read[d].handles) {
            std::string id = found.handle.id;
            auto [it, added] = index.handles.try_emplace(std::move(id));
            if (added) {
                it->second.handle = std::move(found.handle);
                it->second.file = std::move(found.file);
            }
            if (it->second.dirs.empty() || it->second.dirs.back() != d) {
                it->second.dirs.push_back(d);
            }
        }
    }
    return result;
}

} // namespace sdscprov
