// Internal: what profile's printers show of the ideal (profile/utilization.hpp): the text
// report's clock and coverage lines, the ideal columns of its rankings and its category table,
// and the JSON report's fields. They render the report's figures and count nothing.
#pragma once

#include "sdscprov/profile/profile.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <string>

namespace sdscprov::utilization_printers {

// ---- text ---------------------------------------------------------------------------------------

// The clock, the coverage of the ideal and the whole run's utilization: lines for the header.
std::string header_lines(const ProfileReport& r, std::size_t width);

// Whether the rankings have the ideal columns: some kernel directory gave an ideal.
bool has_columns(const ProfileReport& r);
// The columns' heading and one row's cells ("-" where its events have no ideal), each as wide.
std::string columns_head();
std::string columns(const DeviceTime& t);

// The category table: category, calls, time, share, ideal, share of ideal, utilization, lost.
std::string category_table(const ProfileReport& r, const RankingSpec& spec, std::size_t top,
                           std::size_t width, bool by_lost, bool color);

// ---- JSON ---------------------------------------------------------------------------------------

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// The members of the report's "ideal"."kernel_dirs" object, in the order written: profile's JSON
// writes them and merge reads them back by this one list.
struct IdealCount {
    const char* name;
    std::uint64_t IdealSummary::*field;
};
inline constexpr std::array<IdealCount, 5> kernel_dir_counts{
    {{"read", &IdealSummary::dirs_read},
     {"by_total", &IdealSummary::dirs_by_total},
     {"by_sum", &IdealSummary::dirs_by_sum},
     {"malformed", &IdealSummary::dirs_malformed},
     {"absent", &IdealSummary::dirs_absent}}};

// "utilization": {...} of a row or bundle.
void time_json(Writer& w, const IdealTime& t);
// "ideal": {...} of a bundle (null without one).
void bundle_json(Writer& w, const ProfileBundle& b);
// The report's "ideal": {...} (the clock, the files, the whole run).
void summary_json(Writer& w, const ProfileReport& r);

} // namespace sdscprov::utilization_printers
