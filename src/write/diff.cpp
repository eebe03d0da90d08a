#include "sdscprov/write/diff.hpp"

#include "sdscprov/core/display.hpp"

#include <vector>

namespace sdscprov {

namespace {

// Lines with their terminators; a last line without one is marked for "\ No newline".
std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
        lines.push_back(text.substr(start, end - start));
        start = end;
    }
    return lines;
}

void emit(std::string& out, char sign, std::string_view line) {
    out.push_back(sign);
    out.append(line);
    if (line.empty() || line.back() != '\n') {
        out.append("\n\\ No newline at end of file\n");
    }
}

std::string range(std::size_t start, std::size_t count) {
    // Unified diff ranges are 1-based; an empty range names the line before it.
    std::size_t first = count == 0 ? start : start + 1;
    std::string out = std::to_string(first);
    if (count != 1) {
        out.push_back(',');
        out.append(std::to_string(count));
    }
    return out;
}

} // namespace

std::string unified_diff(const std::string& path, std::string_view before, std::string_view after) {
    if (before == after) {
        return {};
    }
    auto a = split_lines(before);
    auto b = split_lines(after);
    std::size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) {
        ++prefix;
    }
    std::size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
        ++suffix;
    }
    constexpr std::size_t context = 3;
    std::size_t lead = std::min(prefix, context);
    std::size_t trail = std::min(suffix, context);
    std::size_t a_start = prefix - lead;
    std::size_t a_count = lead + (a.size() - prefix - suffix) + trail;
    std::size_t b_count = lead + (b.size() - prefix - suffix) + trail;
    // The names quoted as git quotes them in a diff's header lines, without "." components
    // (`git apply` refuses "a/./x").
    std::string name(path);
    while (name.starts_with("./")) {
        name.erase(0, 2);
    }
    for (std::size_t at; (at = name.find("/./")) != std::string::npos;) {
        name.erase(at, 2);
    }
    std::string out = "--- " + git_quoted_path("a/" + name) + "\n+++ " +
                      git_quoted_path("b/" + name) + "\n@@ -" + range(a_start, a_count) + " +" +
                      range(a_start, b_count) + " @@\n";
    for (std::size_t i = a_start; i < prefix; ++i) {
        emit(out, ' ', a[i]);
    }
    for (std::size_t i = prefix; i < a.size() - suffix; ++i) {
        emit(out, '-', a[i]);
    }
    for (std::size_t i = prefix; i < b.size() - suffix; ++i) {
        emit(out, '+', b[i]);
    }
    for (std::size_t i = a.size() - suffix; i < a.size() - suffix + trail; ++i) {
        emit(out, ' ', a[i]);
    }
    return out;
}

} // namespace sdscprov
