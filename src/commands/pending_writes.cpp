#include "sdscprov/commands/pending_writes.hpp"

namespace sdscprov {

void add_pending(KernelAnnotation& annotation, PendingReplace&& replace) {
    if (!annotation.pending) {
        annotation.pending = std::make_shared<PendingWrites>();
    }
    annotation.pending->replaces.push_back(std::move(replace));
}

std::vector<PendingReplace> take_pending(KernelAnnotation& annotation) {
    if (!annotation.pending) {
        return {};
    }
    std::vector<PendingReplace> taken = std::move(annotation.pending->replaces);
    annotation.pending.reset();
    return taken;
}

std::size_t pending_count(const KernelAnnotation& annotation) {
    return annotation.pending ? annotation.pending->replaces.size() : 0;
}

} // namespace sdscprov
