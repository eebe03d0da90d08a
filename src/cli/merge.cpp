// `sdscprov merge REPORTS...`: the shards' JSON reports joined into one run's report.
#include "sdscprov/report/merge.hpp"

#include "commands.hpp"
#include "common.hpp"
#include "sdscprov/core/display.hpp"

#include <iostream>

namespace sdscprov::cli {

void add_merge_options(CLI::App& merge, std::vector<std::string>& reports) {
    merge
        .add_option("reports", reports,
                     "The JSON reports of every shard (scan, annotate, strip or check, "
                     "--format json), in any order")
        ->required()
        ->check(CLI::ExistingFile);
    merge.footer("Example:\n  for i in 1 2 3; do sdscprov scan --format json --shard $i/3 cache/ "
                  "> shard-$i.json; done\n"
                  "  sdscprov merge shard-*.json > report.json\n"
                  "Exit status: 0 merged, 2 the reports cannot be merged (other commands, "
                  "versions or shardings, a shard missing or twice, not a shard report).");
}

// merge: the shards' JSON reports (--shard I/N, --format json) into the single run's report.
int run_merge(const std::vector<std::string>& paths) {
    std::vector<sdscprov::ShardReport> reports;
    for (const auto& path : paths) {
        Problem problem;
        auto report = sdscprov::read_shard_report(path, problem);
        if (!report) {
            print_problems({problem});
            std::cerr << "sdscprov merge: cannot read " << quote_path(path) << ": nothing merged\n";
            return exit_bad_input;
        }
        reports.push_back(std::move(*report));
    }
    auto merged = sdscprov::merge_reports(reports);
    if (merged.problem) {
        std::cerr << "sdscprov merge: " << problem_line(*merged.problem) << '\n';
        return exit_bad_input;
    }
    std::cout << merged.report;
    std::cout.flush();
    return exit_ok;
}

} // namespace sdscprov::cli
