// A directory that refuses renames, simulated everywhere (an append-only directory, `chattr +a`,
// needs a file system and a capability that a test machine may lack): an LD_PRELOAD library that
// makes rename, renameat and renameat2 of a file whose name holds ".sdscprov-b" (our temporaries)
// fail with EPERM, as an append-only directory makes them fail, when $SDSCPROV_RENAME_FAILS is set.
// Built by tests/e2e/test_safety_runs.py with the system C compiler; not part of the product.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int refused(const char* from) {
    if (getenv("SDSCPROV_RENAME_FAILS") != NULL && from != NULL && strstr(from, ".sdscprov-b")) {
        errno = EPERM;
        return 1;
    }
    return 0;
}

int rename(const char* from, const char* to) {
    if (refused(from)) {
        return -1;
    }
    return ((int (*)(const char*, const char*))dlsym(RTLD_NEXT, "rename"))(from, to);
}

int renameat(int from_dir, const char* from, int to_dir, const char* to) {
    if (refused(from)) {
        return -1;
    }
    return ((int (*)(int, const char*, int, const char*))dlsym(RTLD_NEXT, "renameat"))(
        from_dir, from, to_dir, to);
}

int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned flags) {
    if (refused(from)) {
        return -1;
    }
    return ((int (*)(int, const char*, int, const char*, unsigned))dlsym(RTLD_NEXT, "renameat2"))(
        from_dir, from, to_dir, to, flags);
}
