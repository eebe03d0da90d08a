// profile's CSV formats at the front: which combinations of options go together, and --out-dir,
// one file per ranking written into the directory given (write/output_files.hpp).
#include "messages.hpp"
#include "profile.hpp"
#include "sdscprov/report/csv_printers.hpp"
#include "sdscprov/write/output_files.hpp"

namespace sdscprov::cli {

std::optional<std::string> csv_misuse(const ProfileCli& o) {
    if (!o.out_dir.empty() && o.format != Format::csv) {
        return std::string("--out-dir writes CSV files: give --format csv");
    }
    if (o.format == Format::csv && o.out_dir.empty() && o.by.tables.size() > 1) {
        return std::string("--format csv writes one ranking: give one --by table, or --out-dir "
                           "DIR for one file per ranking");
    }
    if (o.format == Format::acelyzer_categories && !o.baseline.empty()) {
        return std::string(
            "--format acelyzer-categories describes one run: run it without --baseline");
    }
    return std::nullopt;
}

bool write_out_dir(const ProfileCommand& c, const ProfileRunResult& r) {
    const auto files = r.report ? ranking_csv_files(*r.report, c.report.by.tables)
                                : ranking_csv_files(*r.comparison, c.report.by.tables);
    // No output replaces an input (a trace named line.csv in DIR).
    const auto problems = write_output_files(c.out_dir, files, paths_read(c.run));
    messages::problems(problems);
    return problems.empty();
}

} // namespace sdscprov::cli
