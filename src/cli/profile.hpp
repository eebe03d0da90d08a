// `sdscprov profile`: the command-line front of the profile stage (include/sdscprov/profile/).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace sdscprov::cli {

struct ProfileCli {
    std::string trace;
    std::vector<std::string> caches;
    std::vector<std::string> origins;
    std::string format = "text";
    std::size_t top = 20;
    std::vector<std::string> by;   // tables (empty: every ranking) and time or lost
    std::uint32_t core_mhz = 1100; // --core-mhz (default_core_mhz), checked by parse_core_mhz
    std::string value = "time";    // --value of the folded stacks
    bool stages = false;
    std::string annotate_trace;
    std::string color = "auto";
    bool quiet = false;
    unsigned jobs = 0;
    bool include_incomplete = false;
    bool follow_symlinks = false;
    std::uint64_t max_file_size = std::uint64_t{1} << 30;
};

CLI::App* add_profile_command(CLI::App& app, ProfileCli& options);
int run_profile(const ProfileCli& options);

} // namespace sdscprov::cli
