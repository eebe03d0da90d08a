#include "sdscprov/bundle.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace sdscprov {

BundleReadResult parse_bundle(const std::string& path, std::string_view text) {
    BundleReadResult result;
    BundleOrder order;
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
        order.files.emplace_back(name);
        pos += op.size();
    }
    result.order = std::move(order);
    return result;
}

BundleReadResult read_bundle(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        BundleReadResult result;
        result.problems.push_back(make_problem(
            path, {}, ProblemCode::io_error, std::string("cannot read: ") + std::strerror(errno)));
        return result;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_bundle(path, text.str());
}

} // namespace sdscprov
