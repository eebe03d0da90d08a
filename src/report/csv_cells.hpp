// Internal: the cells of every CSV the printers write (docs/report-csv.md). RFC 4180: a header
// row, fields separated by ',', records ended by LF (as pandas and most Unix tools write them;
// every reader RFC 4180 describes takes LF as well as CRLF). A field is quoted when it holds a
// comma, a double quote, CR or LF, or begins or ends with a space or tab (readers that trim
// whitespace keep a quoted field whole); a double quote inside is doubled. Every other byte is
// written as it is: names and paths keep their bytes exactly (control characters, bidirectional
// formatting characters, a leading '=', '+', '-' or '@' included), so that what a program reads
// back is what the trace or the cache held. Numbers are unformatted: integers in decimal, ratios
// the shortest decimal that reads back as the same double. A missing value is an empty field; an
// empty text is "" (DuckDB reads the first as NULL, the second as an empty string).
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace sdscprov::csv {

inline bool needs_quotes(std::string_view s) {
    if (s.empty()) {
        return true;
    }
    auto blank = [](char c) { return c == ' ' || c == '\t'; };
    return s.find_first_of(",\"\r\n") != std::string_view::npos || blank(s.front()) ||
           blank(s.back());
}

// One text field, quoted when it must be.
inline void text(std::string& out, std::string_view s) {
    if (!needs_quotes(s)) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"') {
            out += '"';
        }
        out += c;
    }
    out += '"';
}

// One record, cell by cell: a ',' before every cell but the first; end() closes it.
class Record {
public:
    explicit Record(std::string& out) : out_(out) {}
    Record& text(std::string_view s) {
        next();
        csv::text(out_, s);
        return *this;
    }
    Record& number(std::uint64_t n) {
        next();
        out_ += std::to_string(n);
        return *this;
    }
    Record& number(std::int64_t n) {
        next();
        out_ += std::to_string(n);
        return *this;
    }
    // The shortest decimal that reads back as `v` (std::to_chars), never in a locale's format;
    // empty for a value that is not finite.
    Record& number(double v) {
        next();
        char buf[32];
        auto [last, ec] = std::to_chars(buf, buf + sizeof buf, v);
        if (ec == std::errc() && v == v && v - v == 0) {
            out_.append(buf, last);
        }
        return *this;
    }
    // A number already written out (never quoted).
    Record& cell(std::string_view formatted) {
        next();
        out_ += formatted;
        return *this;
    }
    // A missing value: an empty field.
    Record& none() {
        next();
        return *this;
    }
    template <class T> Record& optional(const std::optional<T>& v) {
        if (!v) {
            return none();
        }
        if constexpr (std::is_convertible_v<T, std::string_view>) {
            return text(*v);
        } else {
            return number(*v);
        }
    }
    void end() { out_ += '\n'; }

private:
    void next() {
        if (!first_) {
            out_ += ',';
        }
        first_ = false;
    }
    std::string& out_;
    bool first_ = true;
};

// A header row of plain names.
template <class Names> void header(std::string& out, const Names& names) {
    Record r(out);
    for (const auto& name : names) {
        r.text(name);
    }
    r.end();
}

} // namespace sdscprov::csv
