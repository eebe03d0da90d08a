// Internal: reading a sidecar file from a simdjson DOM while knowing where each value is in the
// text, so that every rejected value is reported at its line and column. Shared by the readers of
// the origins map and of spyre_provenance.json.
#pragma once

#include "sdscprov/core/json_layout.hpp"
#include "sdscprov/core/problem.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace sdscprov::detail {

// Walks a parsed document in pre-order beside the value locations of its text. Location indexes
// (`at`) are positions in json_value_locations(bytes): the root is 0.
class LocatedJsonReader {
public:
    using element = simdjson::dom::element;

    LocatedJsonReader(std::string path, std::string_view bytes, ProblemCode code)
        : path_(std::move(path)), bytes_(bytes), locs_(json_value_locations(bytes)), code_(code) {}

    virtual ~LocatedJsonReader() = default;
    LocatedJsonReader(const LocatedJsonReader&) = delete;
    LocatedJsonReader& operator=(const LocatedJsonReader&) = delete;

    std::vector<Problem> problems;

    bool any_error() const {
        for (const auto& p : problems) {
            if (p.severity == Severity::error) {
                return true;
            }
        }
        return false;
    }

protected:
    TextPosition position(std::size_t at, bool at_key) const {
        return position_of(at_key ? locs_[at].key : locs_[at].value);
    }

    // Line and column of a byte of the text read. A reader of one piece of a file gives the
    // file's line and column.
    virtual TextPosition position_of(std::size_t offset) const {
        if (!lines_) {
            lines_.emplace(bytes_); // built when first asked: a reader of a piece never asks
        }
        return lines_->position(offset);
    }

    void error(std::size_t at, bool at_key, std::string message) {
        problems.push_back(make_problem(path_, position(at, at_key), code_, std::move(message)));
    }

    void warning(TextPosition pos, std::string message) {
        Problem p = make_problem(path_, pos, code_, std::move(message));
        p.severity = Severity::warning;
        problems.push_back(std::move(p));
    }

    void unknown(std::string_view key, std::size_t at, std::string_view where,
                 std::string_view known) {
        error(at, true,
              "unknown member '" + std::string(key) + "' in " + std::string(where) +
                  " (known: " + std::string(known) + ")");
    }

    // Calls f(key, value, location index) for each member, in text order; rejects duplicates.
    void members(const simdjson::dom::object& obj, std::size_t at,
                 const std::function<void(std::string_view, const element&, std::size_t)>& f) {
        // Objects of a sidecar have a handful of members: the first 16 keys are compared in
        // place, without allocating; a larger object's keys go to a hash set.
        std::array<std::string_view, 16> few;
        std::size_t n = 0;
        std::unordered_set<std::string_view> many;
        auto first_time = [&](std::string_view key) {
            if (many.empty()) {
                if (std::find(few.begin(), few.begin() + static_cast<std::ptrdiff_t>(n), key) !=
                    few.begin() + static_cast<std::ptrdiff_t>(n)) {
                    return false;
                }
                if (n < few.size()) {
                    few[n++] = key;
                    return true;
                }
                many.insert(few.begin(), few.end());
            }
            return many.insert(key).second;
        };
        std::size_t child = at + 1;
        for (auto [key, value] : obj) {
            if (!first_time(key)) {
                error(child, true, "duplicate member '" + std::string(key) + "'");
            } else {
                f(key, value, child);
            }
            child += locs_[child].count;
        }
    }

    // Calls f(value, location index, element index) for each element.
    void elements(const simdjson::dom::array& arr, std::size_t at,
                  const std::function<void(const element&, std::size_t, std::size_t)>& f) {
        std::size_t child = at + 1;
        std::size_t i = 0;
        for (element value : arr) {
            f(value, child, i++);
            child += locs_[child].count;
        }
    }

    bool string(const element& e, std::size_t at, std::string_view what, std::string& out) {
        std::string_view s;
        if (e.get(s) != simdjson::SUCCESS) {
            error(at, false, std::string(what) + " must be a string");
            return false;
        }
        out.assign(s);
        return true;
    }

    bool optional_string(const element& e, std::size_t at, std::string_view what,
                         std::optional<std::string>& out) {
        if (e.is_null()) {
            out.reset();
            return true;
        }
        std::string_view s;
        if (e.get(s) != simdjson::SUCCESS) {
            error(at, false, std::string(what) + " must be a string or null");
            return false;
        }
        out = std::string(s);
        return true;
    }

    bool object(const element& e, std::size_t at, std::string_view what,
                simdjson::dom::object& out) {
        if (e.get(out) != simdjson::SUCCESS) {
            error(at, false, std::string(what) + " must be an object");
            return false;
        }
        return true;
    }

    bool array(const element& e, std::size_t at, std::string_view what, simdjson::dom::array& out) {
        if (e.get(out) != simdjson::SUCCESS) {
            error(at, false, std::string(what) + " must be an array");
            return false;
        }
        return true;
    }

    // The value's text, as it is in the file.
    std::string_view raw(std::size_t at) const {
        return bytes_.substr(locs_[at].value, locs_[at].end - locs_[at].value);
    }

    std::string path_;
    std::string_view bytes_;
    mutable std::optional<LineIndex> lines_;
    std::vector<JsonValueLocation> locs_;
    ProblemCode code_;
};

// Loads `path` into a padded buffer (a sidecar can be megabytes: read once, parse in place): a
// regular file of at most `max_size` bytes (read_file.hpp). On failure, returns nullopt with an
// io-error, not-a-regular-file or file-too-large problem in `problems`.
std::optional<simdjson::padded_string> load_padded(const std::string& path, std::string_view what,
                                                   std::uint64_t max_size,
                                                   std::vector<Problem>& problems);

// Parses `bytes` (followed by SIMDJSON_PADDING readable bytes) into `root`; on invalid JSON adds a
// parse-error problem at the error's line and column and returns false.
bool parse_located(simdjson::dom::parser& parser, const std::string& path, std::string_view bytes,
                   simdjson::dom::element& root, std::vector<Problem>& problems);

// The whole-document read of a sidecar: `bytes` (padded as above) parsed, then its root read by
// `Reader(path, bytes)`, whose read(root) gives the value (nullopt when rejected) and whose
// `problems` say why. `value` is the member of Result that holds what was read.
template <typename Reader, typename Result, typename Value>
Result read_located(const std::string& path, std::string_view bytes,
                    std::optional<Value> Result::*value) {
    Result result;
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (!parse_located(parser, path, bytes, root, result.problems)) {
        return result;
    }
    Reader reader(path, bytes);
    result.*value = reader.read(root);
    result.problems = std::move(reader.problems);
    return result;
}

} // namespace sdscprov::detail
