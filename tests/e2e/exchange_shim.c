// A hostile tree, made at the moment of an open: an LD_PRELOAD library that, when the process
// opens a file or directory whose last name is $SDSCPROV_EXCHANGE_NAME (open, openat, and openat2
// through syscall()), atomically exchanges $SDSCPROV_EXCHANGE_A and $SDSCPROV_EXCHANGE_B
// (renameat2 RENAME_EXCHANGE: e.g. a kernel directory and a symbolic link to a directory outside
// the tree), once. $SDSCPROV_EXCHANGE_WHEN says when: "before" the open, or "after" it (the
// default); $SDSCPROV_EXCHANGE_NTH (default 1) which of the opens of that name. Each exchange
// appends a line to $SDSCPROV_EXCHANGE_LOG, so that a test knows it happened. Built by
// tests/e2e/test_safety_exchange.py with the system C compiler; not part of the product.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int seen = 0;
static int done = 0;

static void* next(const char* name) {
    return dlsym(RTLD_NEXT, name);
}

// Whether this open is the one: its last name is the one asked for, and it is the nth.
static int chosen(const char* path) {
    const char* name = getenv("SDSCPROV_EXCHANGE_NAME");
    if (name == NULL || path == NULL || __atomic_load_n(&done, __ATOMIC_SEQ_CST)) {
        return 0;
    }
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') {
        --n;
    }
    size_t start = n;
    while (start > 0 && path[start - 1] != '/') {
        --start;
    }
    if (n - start != strlen(name) || strncmp(path + start, name, n - start) != 0) {
        return 0;
    }
    const char* nth = getenv("SDSCPROV_EXCHANGE_NTH");
    int wanted = nth != NULL ? atoi(nth) : 1;
    return __atomic_add_fetch(&seen, 1, __ATOMIC_SEQ_CST) == wanted;
}

static int before(void) {
    const char* when = getenv("SDSCPROV_EXCHANGE_WHEN");
    return when != NULL && strcmp(when, "before") == 0;
}

static void exchange(void) {
    if (__atomic_exchange_n(&done, 1, __ATOMIC_SEQ_CST)) {
        return;
    }
    const char* a = getenv("SDSCPROV_EXCHANGE_A");
    const char* b = getenv("SDSCPROV_EXCHANGE_B");
    long rc = ((long (*)(long, ...))next("syscall"))(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
                                                     2 /* RENAME_EXCHANGE */);
    const char* log = getenv("SDSCPROV_EXCHANGE_LOG");
    if (log != NULL) {
        int out = ((int (*)(const char*, int, ...))next("open"))(log, O_WRONLY | O_APPEND | O_CREAT,
                                                                 0644);
        if (out >= 0) {
            const char* line = rc == 0 ? "exchanged\n" : "exchange failed\n";
            ((ssize_t(*)(int, const void*, size_t))next("write"))(out, line, strlen(line));
            close(out);
        }
    }
}

#define AROUND(path, call)                                                                        \
    do {                                                                                          \
        int hit = chosen(path);                                                                   \
        if (hit && before()) {                                                                    \
            exchange();                                                                           \
        }                                                                                         \
        long result = (long)(call);                                                               \
        if (hit && !before()) {                                                                   \
            exchange();                                                                           \
        }                                                                                         \
        return result;                                                                            \
    } while (0)

static mode_t mode_of(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) != 0 ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    AROUND(path, ((int (*)(const char*, int, ...))next("open"))(path, flags, mode));
}

int open64(const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    AROUND(path, ((int (*)(const char*, int, ...))next("open64"))(path, flags, mode));
}

int openat(int dirfd, const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    AROUND(path, ((int (*)(int, const char*, int, ...))next("openat"))(dirfd, path, flags, mode));
}

int openat64(int dirfd, const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    AROUND(path, ((int (*)(int, const char*, int, ...))next("openat64"))(dirfd, path, flags, mode));
}

long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; ++i) {
        a[i] = va_arg(ap, long);
    }
    va_end(ap);
    long (*real)(long, ...) = (long (*)(long, ...))next("syscall");
    if (number == SYS_openat2) {
        AROUND((const char*)a[1], real(number, a[0], a[1], a[2], a[3], a[4], a[5]));
    }
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
