// The sentences under the step table (report/timeline_printers.hpp): what is not given is said
// with its reason, not as a median of nothing.
#include "report/timeline_printers.hpp"
#include "sdscprov/profile/profile.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

TEST_CASE("timeline text: a launch delay without launched activities is not given, and why") {
    ProfileReport r;
    r.timeline.activities = 3;
    r.timeline.launch_events = 0;
    auto text = timeline_printers::text(r, 0, 1000, false);
    CHECK(text.find("launch delay: not given (no runtime launch event in the trace)\n") !=
          std::string::npos);
    r.timeline.launch_events = 2;
    text = timeline_printers::text(r, 0, 1000, false);
    CHECK(text.find("launch delay: not given (none of the 2 runtime events has the "
                    "args.correlation of a device activity)\n") != std::string::npos);
    r.timeline.launch.launched = 1;
    r.timeline.launch.median_ns = 21'000;
    text = timeline_printers::text(r, 0, 1000, false);
    CHECK(
        text.find("launch delay: median 0.021 ms over 1 launched activity (2 runtime events)\n") !=
        std::string::npos);
    CHECK(text.find("launch delay: not given") == std::string::npos);
}
