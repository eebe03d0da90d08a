// What a sharded run (--shard) adds to a JSON report for `sdscprov merge`: each problem's place
// in the whole walk and the "shard" member (docs/report-json.md, "Shards"). Internal to the
// library; `W` is a RapidJSON writer.
#pragma once

#include "core/json_out.hpp"
#include "sdscprov/walk/shard.hpp"

namespace sdscprov::json_out {

// {"path", "line", "col", "severity", "code", "message"}, and in a sharded run's report "scope"
// and "position" (docs/report-json.md, "Shards").
template <class W> void problem(W& w, const Problem& p, const ProblemPlace* place) {
    w.StartObject();
    problem_members(w, p);
    if (place) {
        key(w, "scope");
        string(w, to_string(place->scope));
        key(w, "position");
        if (place->scope == ProblemScope::run) {
            w.Null();
        } else {
            w.Uint64(place->position);
        }
    }
    w.EndObject();
}

// A sharded run's "shard" member: which shard, and what merge checks of the walk.
template <class W> void shard(W& w, const ShardWalk& walk) {
    key(w, "shard");
    w.StartObject();
    key(w, "index");
    w.Uint(walk.shard.index);
    key(w, "count");
    w.Uint(walk.shard.count);
    key(w, "hash");
    string(w, "fnv1a64");
    key(w, "positions");
    w.Uint64(walk.positions);
    key(w, "kernels");
    w.Uint64(walk.kernels);
    w.EndObject();
}

} // namespace sdscprov::json_out
