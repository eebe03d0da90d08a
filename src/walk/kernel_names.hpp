// Internal: what names a kernel directory (discover.cpp): its directory name's parts, and a
// persistent kernel cache entry's kernel_name.txt.
#pragma once

#include "sdscprov/walk/discover.hpp"

namespace sdscprov {

// Reads `kernel_name.txt` in the directory open as `dfd` (a regular file, never through a
// symbolic link, at most 1 MiB) and sets `kd.kernel` to its first name, `kd.other_kernels` to the
// rest. Anything unreadable leaves `kd` as it is: the file is optional.
void read_kernel_name_list(int dfd, KernelDir& kd);

} // namespace sdscprov
