#include "profile/derived.hpp"

#include <functional>

namespace sdscprov {

CatKind cat_kind_of(FieldState state, std::string_view cat) {
    if (state != FieldState::ok) {
        return CatKind::other;
    }
    if (cat == "kernel") {
        return CatKind::kernel;
    }
    if (cat == "gpu_memcpy" || cat == "gpu_memset") {
        return CatKind::transfer;
    }
    if (cat == "user_annotation") {
        return CatKind::user_annotation;
    }
    if (cat == "cpu_op") {
        return CatKind::cpu_op;
    }
    if (cat.find("runtime") != std::string_view::npos || cat == "cuda_driver") {
        return CatKind::runtime;
    }
    return CatKind::other;
}

bool pairs(const TraceEvent& e) {
    return e.object && e.ph_state == FieldState::ok && e.ph == "X" &&
           ((e.name_state == FieldState::ok && e.name.starts_with("spyre_kernel")) ||
            e.provenance_key_state != FieldState::absent);
}

std::uint64_t variant_hash_of(const TraceEvent& e, std::string& scratch) {
    variant_key(e, scratch);
    return std::hash<std::string_view>{}(scratch);
}

void derive_fields(TraceEvent& e) {
    e.cat_kind = cat_kind_of(e.cat_state, e.cat);
}

void derive(TraceEvent& e, std::string& scratch) {
    if (pairs(e)) {
        e.variant_hash = variant_hash_of(e, scratch);
        e.variant_hash_known = true;
    }
}

} // namespace sdscprov
