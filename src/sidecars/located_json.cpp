#include "sidecars/located_json.hpp"

#include "core/read_file.hpp"
#include "sdscprov/core/json_error.hpp"

namespace sdscprov::detail {

std::optional<simdjson::padded_string> load_padded(const std::string& path, std::string_view what,
                                                   std::uint64_t max_size,
                                                   std::vector<Problem>& problems) {
    Problem problem;
    auto content = read_whole_file(path, max_size, what, problem);
    if (!content) {
        problems.push_back(std::move(problem));
    }
    return content;
}

bool parse_located(simdjson::dom::parser& parser, const std::string& path, std::string_view bytes,
                   simdjson::dom::element& root, std::vector<Problem>& problems) {
    if (parser.parse(bytes.data(), bytes.size(), false).get(root) == simdjson::SUCCESS) {
        return true;
    }
    auto located = locate_json_error(bytes);
    problems.push_back(make_problem(path, position_at(bytes, located ? located->offset : 0),
                                    ProblemCode::parse_error,
                                    located ? located->message : std::string("invalid JSON")));
    return false;
}

} // namespace sdscprov::detail
