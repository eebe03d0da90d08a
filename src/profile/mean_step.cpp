// profile --baseline's mean steps: each run's step figures summed and divided by its steps.
#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/steps.hpp"

#include "profile/saturating.hpp"

namespace sdscprov {

MeanStep mean_step(const TimelineSummary& t) {
    MeanStep m;
    m.step_spans = t.step_spans;
    m.steps = t.steps.size();
    m.min_ns = t.step_min_ns;
    m.median_ns = t.step_median_ns;
    m.max_ns = t.step_max_ns;
    m.launch_median_ns = t.launch.median_ns;
    std::uint64_t wall = 0, busy = 0, transfer = 0, launches = 0;
    IdleTime idle;
    for (const StepTimeline& s : t.steps) {
        wall = saturating_add(wall, s.wall_ns);
        busy = saturating_add(busy, s.kernel_busy_ns);
        transfer = saturating_add(transfer, s.transfer_ns);
        launches = saturating_add(launches, s.launch.launched);
        idle.add(s.idle);
    }
    m.wall_ns = per_step(wall, m.steps);
    m.kernel_busy_ns = per_step(busy, m.steps);
    m.transfer_ns = per_step(transfer, m.steps);
    m.launches = per_step(launches, m.steps);
    m.idle.gaps = per_step(idle.gaps, m.steps);
    m.idle.ns = per_step(idle.ns, m.steps);
    m.idle.host_wait_ns = per_step(idle.host_wait_ns, m.steps);
    m.idle.launch_latency_ns = per_step(idle.launch_latency_ns, m.steps);
    m.idle.unattributed_ns = per_step(idle.unattributed_ns, m.steps);
    return m;
}

} // namespace sdscprov
