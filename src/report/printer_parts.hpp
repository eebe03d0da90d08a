// What the report printers share: short text helpers and one constructor per format
// (report.cpp's make_printer() picks one). Internal to the library.
#pragma once

#include "sdscprov/core/path.hpp"
#include "sdscprov/report/printer.hpp"
#include "sdscprov/report/report.hpp"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace sdscprov::report_parts {

// "1 error", "2 warnings"; "1 directory", "2 directories" with the stem and its two endings.
inline std::string plural(std::uint64_t n, std::string_view noun, std::string_view one = "",
                          std::string_view many = "s") {
    return std::to_string(n) + " " + std::string(noun) + std::string(n == 1 ? one : many);
}

std::unique_ptr<ReportPrinter> make_text_printer(std::ostream& out, PrinterOptions options);
std::unique_ptr<ReportPrinter> make_json_printer(std::ostream& out, PrinterOptions options);
std::unique_ptr<ReportPrinter> make_markdown_printer(std::ostream& out, PrinterOptions options);

// The printer of a command whose result comes whole at the end (profile, profile --baseline):
// `render` gives the bytes of the format, written to the stream.
template <class End, class Options> class WholeResultPrinter final : public Printer<NoItems, End> {
public:
    using Render = std::string (*)(ReportFormat, const Options&, const End&);
    WholeResultPrinter(Render render, ReportFormat format, std::ostream& out, Options options)
        : render_(render), format_(format), out_(out), options_(std::move(options)) {}
    void item(const NoItems&) override {}
    void end(const End& result) override { out_ << render_(format_, options_, result); }

private:
    Render render_;
    ReportFormat format_;
    std::ostream& out_;
    Options options_;
};

} // namespace sdscprov::report_parts
