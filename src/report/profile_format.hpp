// Internal: the numbers and widths of profile's text report (profile_printers.cpp,
// utilization_printers.cpp).
#pragma once

#include "sdscprov/core/display.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/profile/profile.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sdscprov::profile_format {

// ---- folded stacks -----------------------------------------------------------------------------

// A frame of a folded stack: ';' (the frame separator) becomes ',', the rest as printable() shows
// it (control characters '?', bidirectional formatting characters <U+202E>).
inline std::string folded_frame(std::string_view s) {
    std::string out = printable(s);
    std::replace(out.begin(), out.end(), ';', ',');
    return out;
}

// A bundle's stack: its source line, its ATen op, its kernel row.
inline std::string folded_stack(const ProfileBundle& b) {
    return folded_frame(b.root_label) + ";" + folded_frame(b.aten_label) + ";" +
           folded_frame(b.label);
}

// ---- the source-text note -----------------------------------------------------------------------

// After the tables: a blank line, then what was not read of the source files and why, one dim
// line each (nothing when every file was read).
inline std::string source_text_lines(const SourceTextNote& note, bool color) {
    std::string out;
    for (const auto& sentence : source_text_sentences(note)) {
        if (out.empty()) {
            out += '\n';
        }
        out += color ? "\x1b[2m" + printable(sentence) + "\x1b[0m\n" : printable(sentence) + '\n';
    }
    return out;
}

// ---- numbers ------------------------------------------------------------------------------------

inline std::string thousands(std::uint64_t n) {
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return out;
}

// Nanoseconds as milliseconds with three decimals (rounded half up), thousands separated.
inline std::string milliseconds(std::uint64_t ns) {
    std::uint64_t us = ns / 1000 + (ns % 1000 >= 500 ? 1 : 0);
    std::string frac = std::to_string(us % 1000);
    return thousands(us / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

// part / whole in percent with one decimal; "-" without a whole.
inline std::string percent(std::uint64_t part, std::uint64_t whole) {
    if (whole == 0) {
        return "-";
    }
    auto tenths = static_cast<std::uint64_t>(
        (static_cast<long double>(part) * 1000.0L) / static_cast<long double>(whole) + 0.5L);
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

// Counter ticks in three significant figures: 987, 12.3k, 4.56M, 7.89G, ...
inline std::string ticks(std::uint64_t n) {
    static constexpr const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
    if (n < 1000) {
        return std::to_string(n);
    }
    long double v = static_cast<long double>(n);
    std::size_t u = 0;
    while (v >= 999.5L && u + 1 < std::size(units)) {
        v /= 1000.0L;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  v >= 99.95L   ? "%.0Lf%s"
                  : v >= 9.995L ? "%.1Lf%s"
                                : "%.2Lf%s",
                  v, units[u]);
    return buf;
}

// ---- text ---------------------------------------------------------------------------------------

// Display width of printable UTF-8 text (core/display.hpp).
inline std::size_t width_of(std::string_view s) {
    return display_width(s);
}

// At most `width` columns of `s`: the start cut off (for paths, whose end matters) or the end.
inline std::string fit(const std::string& s, std::size_t width, bool keep_end) {
    if (width_of(s) <= width || width < 2) {
        return s;
    }
    const std::string ellipsis = "\xE2\x80\xA6"; // one column
    std::size_t keep = width - 1;
    if (keep_end) {
        std::size_t at = s.size();
        for (std::size_t cols = 0; at > 0 && cols < keep;) {
            --at;
            if ((static_cast<unsigned char>(s[at]) & 0xC0U) != 0x80U) {
                ++cols;
            }
        }
        return ellipsis + s.substr(at);
    }
    std::size_t at = 0;
    for (std::size_t cols = 0; at < s.size();) {
        if ((static_cast<unsigned char>(s[at]) & 0xC0U) != 0x80U) {
            if (cols == keep) {
                break;
            }
            ++cols;
        }
        ++at;
    }
    return s.substr(0, at) + ellipsis;
}

// At most `width` columns of `s`, shortened in the middle: a kernel row's label keeps its start
// (the kernel) and, with more room, its end (the directory or key that tells it apart).
inline std::string fit_middle(const std::string& s, std::size_t width) {
    if (width_of(s) <= width || width < 5) {
        return fit(s, width, false);
    }
    std::size_t tail = (width - 1) * 2 / 3;
    std::string head = fit(s, width - tail, false); // ends with the ellipsis
    std::string end = fit(s, tail + 1, true);       // starts with it
    return head + end.substr(3);
}

// The header's "  sidecars: A, B" and "  caches: C" lines ("none" for an empty list), each fitted
// to `width` columns.
inline std::string inputs_lines(const ProfileReport& r, std::size_t width) {
    auto line = [width](const std::string& what, const std::vector<std::string>& paths) {
        std::string list;
        for (const auto& p : paths) {
            list += (list.empty() ? "" : ", ") + printable(p);
        }
        return fit("  " + what + ": " + (list.empty() ? std::string("none") : list), width, false) +
               "\n";
    };
    return line("sidecars", r.sidecars) + line("caches", r.caches);
}

// Words wrapped at `width`, continued two spaces in.
inline std::string wrapped(const std::string& sentence, std::size_t width) {
    std::string out;
    std::string line;
    std::size_t start = 0;
    while (start < sentence.size()) {
        auto end = sentence.find(' ', start);
        end = end == std::string::npos ? sentence.size() : end;
        std::string word = sentence.substr(start, end - start);
        if (!line.empty() && width_of(line) + 1 + width_of(word) > width) {
            out += line + '\n';
            line = "  " + word;
        } else {
            line += (line.empty() ? "" : " ") + word;
        }
        start = end + 1;
    }
    return out + line + '\n';
}

// `s` right-aligned in `width` columns (as it is when wider).
inline std::string pad_left(const std::string& s, std::size_t width) {
    std::size_t w = width_of(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}

// A figure right-aligned in a column `width` wide, with at least one space before it however wide
// it is: two figures of a row never run together, whatever a fixed column's width.
inline std::string cell(const std::string& s, std::size_t width) {
    return " " + pad_left(s, width > 0 ? width - 1 : 0);
}

// Right-aligned columns sized to what they show: each as wide as given, or two columns more than
// its widest cell, so that a table stays aligned however large its figures grow. fit() every row
// (the heads too) before the first line(); a column left out (drop()) is in no line.
class Columns {
public:
    explicit Columns(std::vector<std::size_t> widths)
        : widths_(std::move(widths)), shown_(widths_.size(), true) {}

    void fit(const std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size() && i < widths_.size(); ++i) {
            widths_[i] = std::max(widths_[i], width_of(cells[i]) + 2);
        }
    }

    void drop(std::size_t i) { shown_.at(i) = false; }

    // The columns' width in all (the ones shown).
    std::size_t width() const {
        std::size_t w = 0;
        for (std::size_t i = 0; i < widths_.size(); ++i) {
            w += shown_[i] ? widths_[i] : 0;
        }
        return w;
    }

    // The heads of the columns left out, in column order, joined by ", " ("" for none).
    std::string left_out(const std::vector<std::string>& heads) const {
        std::string out;
        for (std::size_t i = 0; i < heads.size() && i < shown_.size(); ++i) {
            out += shown_[i] ? "" : (out.empty() ? "" : ", ") + heads[i];
        }
        return out;
    }

    std::string line(const std::vector<std::string>& cells) const {
        std::string out;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (i >= widths_.size() || shown_[i]) {
                out += pad_left(cells[i], i < widths_.size() ? widths_[i] : 0);
            }
        }
        return out;
    }

private:
    std::vector<std::size_t> widths_;
    std::vector<bool> shown_;
};

} // namespace sdscprov::profile_format
