// A full disk, simulated: an LD_PRELOAD library that makes the calls named in $SDSCPROV_ENOSPC
// (comma-separated: write, fsync, syncfs, create) fail with ENOSPC, as a full file system makes
// them fail. Only calls on regular files other than standard input, output and error fail, so
// the report still reaches its pipe. Built by tests/e2e/test_bad_input.py with the system C
// compiler into a temporary directory; not part of the product.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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
