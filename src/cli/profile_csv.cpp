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
    std::vector<const RankingSpec*> specs = c.report.by.tables;
    if (specs.empty()) {
        if (r.report) {
            for (const auto& ranking : r.report->rankings) {
                specs.push_back(ranking.spec);
            }
        } else if (r.comparison) {
            for (const auto& ranking : r.comparison->rankings) {
                specs.push_back(ranking.spec);
            }
        }
    }
    std::vector<OutputFile> files;
    for (const RankingSpec* spec : specs) {
        files.push_back({ranking_csv_name(*spec),
                         r.report ? render_ranking_csv(*r.report, *spec)
                                  : render_comparison_csv(*r.comparison, *spec)});
    }
    // No output replaces an input (a trace named line.csv in DIR).
    std::vector<std::string> inputs = c.run.inputs;
    inputs.insert(inputs.end(), c.run.origins.begin(), c.run.origins.end());
    if (c.run.baseline) {
        inputs.push_back(c.run.baseline->trace);
        inputs.insert(inputs.end(), c.run.baseline->origins.begin(),
                      c.run.baseline->origins.end());
    }
    const auto problems = write_output_files(c.out_dir, files, inputs);
    messages::problems(problems);
    return problems.empty();
}

} // namespace sdscprov::cli
