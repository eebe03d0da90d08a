// What the report printers share: short text helpers and one constructor per format
// (report.cpp's make_printer() picks one). Internal to the library.
#pragma once

#include "sdscprov/core/path.hpp"
#include "sdscprov/report/report.hpp"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace sdscprov::report_parts {

// "1 error", "2 warnings"; "1 directory", "2 directories" with the stem and its two endings.
inline std::string plural(std::uint64_t n, std::string_view noun, std::string_view one = "",
                          std::string_view many = "s") {
    return std::to_string(n) + " " + std::string(noun) + std::string(n == 1 ? one : many);
}

std::unique_ptr<ReportPrinter> make_text_printer(std::ostream& out, PrinterOptions options);
std::unique_ptr<ReportPrinter> make_json_printer(std::ostream& out, PrinterOptions options);
std::unique_ptr<ReportPrinter> make_markdown_printer(std::ostream& out, PrinterOptions options);

} // namespace sdscprov::report_parts
