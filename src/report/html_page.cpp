// The HTML page shared by every command (report/html.hpp): its skeleton around the stylesheet,
// markup and script of src/report/page/ (report/page_assets.hpp), and the escaping that keeps
// file-borne text out of the markup. The script reads the page's data (src/report/html.cpp) and
// builds every element with textContent; its long lists are virtualised (only the rows in view
// exist), so that a 100,000-file cache's page stays quick.
#include "report/page_assets.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/html.hpp"

#include <array>
#include <ostream>

namespace sdscprov {

std::string json_for_script(std::string_view json) {
    std::string out;
    out.reserve(json.size() + json.size() / 16);
    for (std::size_t i = 0; i < json.size(); ++i) {
        char c = json[i];
        if (c == '<') {
            out += "\\u003c";
        } else if (c == '>') {
            out += "\\u003e";
        } else if (c == '&') {
            out += "\\u0026";
        } else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
                   (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
            out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

std::string html_escape(std::string_view text) {
    static constexpr std::string_view special = "&<>\"'";
    static constexpr std::array<std::string_view, 5> entity = {"&amp;", "&lt;", "&gt;", "&quot;",
                                                               "&#39;"};
    std::string out;
    out.reserve(text.size());
    for (const char& c : text) {
        auto i = special.find(c);
        out += i == std::string_view::npos ? std::string_view(&c, 1) : entity[i];
    }
    return out;
}

void write_html_page(std::ostream& out, std::string_view title, std::string_view data_json) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
        << html_escape(printable_text(title)) << "</title>\n<style>\n"
        << page_assets::style() << "</style>\n</head>\n<body>\n"
        << page_assets::body() << "<script type=\"application/json\" id=\"sdscprov-data\">"
        << json_for_script(data_json) << "</script>\n<script>\n"
        << page_assets::script() << "</script>\n</body>\n</html>\n";
}

} // namespace sdscprov
