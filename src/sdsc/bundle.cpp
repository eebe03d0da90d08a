#include "sdscprov/sdsc/bundle.hpp"

#include "core/read_file.hpp"

#include <algorithm>
#include <cctype>

namespace sdscprov {

namespace {

// Spec paths of the bundle's items, line by line: an scf.for line opens a level that ends when
// the braces opened on it are closed.
class SpecPaths {
public:
    // The items on text[from, to) (whole lines), before the sdsc_execute at `to` (or the end).
    void advance(std::string_view text, std::size_t from, std::size_t to) {
        while (from < to) {
            std::size_t end = text.find('\n', from);
            end = end == std::string_view::npos || end > to ? to : end;
            line(text.substr(from, end - from), false);
            from = end + 1;
        }
    }

    // One line; `execute`: it holds the sdsc_execute whose path is returned.
    std::vector<std::uint64_t> line(std::string_view l, bool execute) {
        std::vector<std::uint64_t> path;
        bool loop = l.find("scf.for") != std::string_view::npos;
        if (execute || loop) {
            path = prefix_;
            path.push_back(counters_.back()++);
        }
        if (loop) {
            prefix_ = path;
            counters_.push_back(0);
            opened_at_.push_back(depth_);
        }
        depth_ += static_cast<long>(std::count(l.begin(), l.end(), '{')) -
                  static_cast<long>(std::count(l.begin(), l.end(), '}'));
        while (!opened_at_.empty() && depth_ <= opened_at_.back()) {
            opened_at_.pop_back();
            counters_.pop_back();
            prefix_.pop_back();
        }
        return path;
    }

private:
    long depth_ = 0;
    std::vector<std::uint64_t> prefix_;
    std::vector<std::uint64_t> counters_{0};
    std::vector<long> opened_at_;
};

} // namespace

BundleReadResult parse_bundle(const std::string& path, std::string_view text) {
    BundleReadResult result;
    BundleOrder order;
    SpecPaths paths;
    std::size_t scanned = 0; // text before this offset has been through `paths`
    constexpr std::string_view op = "sdscbundle.sdsc_execute";
    constexpr std::string_view attr = "sdsc_filename=\"";
    std::size_t pos = 0;
    while ((pos = text.find(op, pos)) != std::string_view::npos) {
        std::size_t line_end = text.find('\n', pos);
        std::string_view line = text.substr(
            pos, line_end == std::string_view::npos ? std::string_view::npos : line_end - pos);
        // The attribute itself, not the end of a longer name such as other_sdsc_filename.
        std::size_t a = line.find(attr);
        while (a != std::string_view::npos && a > 0 &&
               (std::isalnum(static_cast<unsigned char>(line[a - 1])) || line[a - 1] == '_')) {
            a = line.find(attr, a + 1);
        }
        std::size_t close = a == std::string_view::npos ? a : line.find('"', a + attr.size());
        if (close == std::string_view::npos) {
            result.problems.push_back(make_problem(path, position_at(text, pos),
                                                   ProblemCode::bad_bundle,
                                                   "sdsc_execute without sdsc_filename=\"...\""));
            return result;
        }
        std::string_view name = line.substr(a + attr.size(), close - a - attr.size());
        if (name.empty() || name.find('/') != std::string_view::npos) {
            result.problems.push_back(
                make_problem(path, position_at(text, pos + a), ProblemCode::bad_bundle,
                             "sdsc_filename \"" + std::string(name) + "\" is not a file name"));
            return result;
        }
        std::size_t line_start = text.rfind('\n', pos);
        line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
        if (line_start >= scanned) {
            paths.advance(text, scanned, line_start);
            std::size_t full_end = line_end == std::string_view::npos ? text.size() : line_end;
            order.spec_paths.push_back(
                paths.line(text.substr(line_start, full_end - line_start), true));
            std::size_t next = line_end == std::string_view::npos ? text.size() : line_end + 1;
            scanned = next;
            pos = next;
        } else {
            // Two sdsc_execute on one line: the second is the next item of the same level.
            order.spec_paths.push_back(order.spec_paths.back());
            ++order.spec_paths.back().back();
            pos += op.size();
        }
        order.files.emplace_back(name);
    }
    result.order = std::move(order);
    return result;
}

BundleReadResult read_bundle(const std::string& path, std::uint64_t max_size, int dir_fd) {
    Problem problem;
    auto text = detail::read_whole_file(path, max_size, "bundle.mlir", problem, dir_fd);
    if (!text) {
        BundleReadResult result;
        result.problems.push_back(std::move(problem));
        return result;
    }
    return parse_bundle(path, std::string_view(text->data(), text->size()));
}

} // namespace sdscprov
