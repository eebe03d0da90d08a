// A full disk, simulated: an LD_PRELOAD library that makes the calls named in $SDSCPROV_ENOSPC
// (comma-separated: write, fsync, syncfs, create) fail with ENOSPC, as a full file system makes
// them fail. Only calls on regular files other than standard input, output and error fail, so
// the report still reaches its pipe; with $SDSCPROV_ENOSPC_DEV (a device number, as st_dev),
// only calls on files of that file system. Built by tests/e2e/test_bad_input.py with the system C
// compiler into a temporary directory; not part of the product.
//
// Two more moments of a run, for the tests of tests/e2e/test_bad_input_runs.py:
//  - $SDSCPROV_SYNCFS_LOG: each syncfs appends the st_dev of its descriptor, one per line;
//  - $SDSCPROV_STOP_AT_SYNCFS: the first syncfs (a batch's temporaries written, none renamed)
//    creates that file, then stops the process (SIGSTOP) until a SIGCONT.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int selected(const char* call) {
    const char* p = getenv("SDSCPROV_ENOSPC");
    size_t n = strlen(call);
    while (p != NULL) {
        if (strncmp(p, call, n) == 0 && (p[n] == ',' || p[n] == '\0')) {
            return 1;
        }
        p = strchr(p, ',');
        if (p != NULL) {
            ++p;
        }
    }
    return 0;
}

static int full(const char* call, int fd) {
    struct stat st;
    if (!selected(call) || fd <= 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        return 0;
    }
    const char* dev = getenv("SDSCPROV_ENOSPC_DEV");
    if (dev != NULL && strtoull(dev, NULL, 10) != (unsigned long long)st.st_dev) {
        return 0;
    }
    errno = ENOSPC;
    return 1;
}

static void* next(const char* name) {
    return dlsym(RTLD_NEXT, name);
}

ssize_t write(int fd, const void* buf, size_t n) {
    if (full("write", fd)) {
        return -1;
    }
    return ((ssize_t(*)(int, const void*, size_t))next("write"))(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
    if (full("write", fd)) {
        return -1;
    }
    return ((ssize_t(*)(int, const void*, size_t, off_t))next("pwrite"))(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) {
    if (full("write", fd)) {
        return -1;
    }
    return ((ssize_t(*)(int, const void*, size_t, off_t))next("pwrite64"))(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
    if (full("write", fd)) {
        return -1;
    }
    return ((ssize_t(*)(int, const struct iovec*, int))next("writev"))(fd, iov, count);
}

ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t off) {
    if (full("write", fd)) {
        return -1;
    }
    return ((ssize_t(*)(int, const struct iovec*, int, off_t))next("pwritev"))(fd, iov, count, off);
}

int fsync(int fd) {
    if (full("fsync", fd)) {
        return -1;
    }
    return ((int (*)(int))next("fsync"))(fd);
}

int fdatasync(int fd) {
    if (full("fsync", fd)) {
        return -1;
    }
    return ((int (*)(int))next("fdatasync"))(fd);
}

int syncfs(int fd) {
    const char* log = getenv("SDSCPROV_SYNCFS_LOG");
    struct stat st;
    if (log != NULL && fstat(fd, &st) == 0) {
        char line[32];
        int n = snprintf(line, sizeof line, "%llu\n", (unsigned long long)st.st_dev);
        int out = ((int (*)(const char*, int, ...))next("open"))(log, O_WRONLY | O_APPEND | O_CREAT,
                                                                 0644);
        if (out >= 0) {
            ((ssize_t(*)(int, const void*, size_t))next("write"))(out, line, (size_t)n);
            close(out);
        }
    }
    static int stopped = 0;
    const char* marker = getenv("SDSCPROV_STOP_AT_SYNCFS");
    if (marker != NULL && !__atomic_exchange_n(&stopped, 1, __ATOMIC_SEQ_CST)) {
        int out = ((int (*)(const char*, int, ...))next("open"))(marker, O_WRONLY | O_CREAT, 0644);
        if (out >= 0) {
            close(out);
        }
        raise(SIGSTOP);
    }
    if (full("syncfs", fd)) {
        return -1;
    }
    return ((int (*)(int))next("syncfs"))(fd);
}

// "create": no room for a new file (no free inode or directory block).
static int create_fails(int flags) {
    if ((flags & O_CREAT) != 0 && selected("create")) {
        errno = ENOSPC;
        return 1;
    }
    return 0;
}

int open(const char* path, int flags, ...) {
    mode_t mode = 0;
    if ((flags & O_CREAT) != 0) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (create_fails(flags)) {
        return -1;
    }
    return ((int (*)(const char*, int, ...))next("open"))(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
    mode_t mode = 0;
    if ((flags & O_CREAT) != 0) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (create_fails(flags)) {
        return -1;
    }
    return ((int (*)(const char*, int, ...))next("open64"))(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
    mode_t mode = 0;
    if ((flags & O_CREAT) != 0) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (create_fails(flags)) {
        return -1;
    }
    return ((int (*)(int, const char*, int, ...))next("openat"))(dirfd, path, flags, mode);
}
