#include "sdscprov/report/report.hpp"

#include "report/html_model.hpp"
#include "report/printer_parts.hpp"
#include "sdscprov/report/csv_printers.hpp"

namespace sdscprov {

Coverage coverage(std::uint64_t count, std::uint64_t total) {
    if (count == 0 || total == 0) {
        return Coverage::none;
    }
    return count >= total ? Coverage::all : Coverage::some;
}

std::string_view to_string(Coverage c) {
    return c == Coverage::all ? "all" : c == Coverage::none ? "none" : "some";
}

std::string_view to_string(ReportCommand c) {
    constexpr std::string_view names[] = {"scan", "annotate", "strip", "check"};
    return names[static_cast<std::size_t>(c)];
}

std::unique_ptr<ReportPrinter> make_printer(ReportFormat format, std::ostream& out,
                                            PrinterOptions options) {
    switch (format) {
    case ReportFormat::json:
        return report_parts::make_json_printer(out, std::move(options));
    case ReportFormat::markdown:
        return report_parts::make_markdown_printer(out, std::move(options));
    case ReportFormat::html:
        return make_html_printer(out, std::move(options));
    case ReportFormat::csv:
        return make_csv_printer(out);
    case ReportFormat::text:
    case ReportFormat::sarif: // check's and profile's formats: scan's report is text there
    case ReportFormat::github:
    case ReportFormat::junit:
    case ReportFormat::folded:
    case ReportFormat::acelyzer_categories:
        break;
    }
    return report_parts::make_text_printer(out, std::move(options));
}

} // namespace sdscprov
