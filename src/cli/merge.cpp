// `sdscprov merge REPORTS...`: the shards' JSON reports joined into one run's report.
#include "sdscprov/report/merge.hpp"

#include "commands.hpp"
#include "common.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/profile_merge.hpp"

#include <iostream>

namespace sdscprov::cli {

void add_merge_options(CLI::App& merge, std::vector<std::string>& reports) {
    merge
        .add_option("reports", reports,
                    "The JSON reports of every shard (scan, annotate, strip or check, "
                    "--format json), in any order; or profile reports (profile --format json) "
                    "of traces profiled one by one")
        ->required()
        ->check(CLI::ExistingFile);
    merge.footer("Example:\n  for i in 1 2 3; do sdscprov scan --format json --shard $i/3 cache/ "
                 "> shard-$i.json; done\n"
                 "  sdscprov merge shard-*.json > report.json\n"
                 "Profile reports of traces profiled one by one (profile TRACE --format json):\n"
                 "  sdscprov merge rank*.profile.json > ranks.json\n"
                 "Exit status: 0 merged, 2 the reports cannot be merged (other commands, "
                 "versions or shardings, a shard missing or twice, not a shard report; profile "
                 "reports of other caches or versions).");
}

namespace {

// Profile reports (profile --format json) of several traces, added up into one; each file read
// and converted on its own, so that only one report's text is held at a time.
int merge_profiles_out(const std::vector<std::string>& paths) {
    auto merged = merge_profile_report_files(paths);
    if (merged.unreadable) {
        print_problems({*merged.unreadable});
        std::cerr << "sdscprov merge: cannot read " << quote_path(merged.unreadable->path)
                  << ": nothing merged\n";
        return exit_bad_input;
    }
    if (merged.refusal) {
        std::cerr << "sdscprov merge: " << problem_line(*merged.refusal) << '\n';
        return exit_bad_input;
    }
    std::cout << merged.report;
    std::cout.flush();
    return std::cout ? exit_ok : exit_bad_input;
}

} // namespace

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
        if (reports.empty() && is_profile_report(report->json)) {
            return merge_profiles_out(paths);
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
