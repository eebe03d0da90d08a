// Safe replace: new bytes go to a temporary file in the same directory, which is renamed over the
// original only if the original is still the file we read. A reader sees the old file or the new
// one, never a half-written one; a killed run leaves at most our own temporary files behind, and
// the next writing run removes those it can prove abandoned (remove_if_abandoned()).
//
// Proof of life: the writer creates each temporary with O_EXCL under a name no other run can
// make (temporary names: parse_temp_file_name() in discover.hpp) and holds an exclusive flock(2)
// on it from then until it is renamed or removed. The kernel drops the lock when the writer dies,
// however it dies, so a lock that can be taken proves the writer gone, in any pid namespace of the
// same kernel (containers, CI runners): pids prove nothing there. On NFS, Linux emulates flock
// with byte-range locks held by the server, so the proof holds across the machines that mount it
// while locking works (not with `nolock`); a temporary of another kernel on a network file system
// is therefore never removed, only reported.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/walk/discover.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <sys/types.h>
#include <vector>

namespace sdscprov {

enum class Durability {
    none,  // no fsync: the OS writes when it likes (a crash may lose the new content, never mix)
    batch, // temps of a batch written, one syncfs per file system, renames, one fsync per directory
    full,  // fsync of each temp before its rename, fsync of the directory after
};

// A directory held open (O_PATH) for the temporaries created in it and for their renames: one
// path walk for the directory instead of one per file, and the temporary's creation, the check
// of the file and the rename all see the same directory, even if the path is changed meanwhile.
// fd is -1 when the directory could not be opened; then paths are used, as without one.
struct OpenDirectory {
    explicit OpenDirectory(std::string path);
    // The directory the walk holds open (never opened again by path).
    OpenDirectory(std::string path, HeldDirectory held);
    ~OpenDirectory();
    OpenDirectory(const OpenDirectory&) = delete;
    OpenDirectory& operator=(const OpenDirectory&) = delete;

    const std::string path;
    const HeldDirectory held; // kept open as long as this is
    const int fd;
    // Why no file in it can be replaced (marked append-only or immutable, chattr +a or +i), asked
    // once when it is opened; empty when one can be, or when that cannot be asked (it was opened
    // by path, O_PATH). A directory marked meanwhile refuses the rename, which says so.
    const std::string unreplaceable;
};

// The directory of the temporaries created last, for a writer that writes the files of one
// directory after each other (a kernel's files). Keep one only as long as the directories may not
// be replaced under their names in between: one kernel's files, not a whole run's.
class TempDirectories {
public:
    // `parent` held open: the one asked for last when it is the same path, else newly opened
    // (with `held`, the walk's descriptor of it, used as it is).
    std::shared_ptr<const OpenDirectory> of(const std::string& parent,
                                            const HeldDirectory& held = nullptr);

private:
    std::shared_ptr<const OpenDirectory> last_;
};

// Where write_temp() takes what the file has besides its bytes, and where it puts the temporary.
struct TempSource {
    // A descriptor of the file as it was read (Scanner::descriptor()), its extended attributes
    // read from it; -1: read from the path.
    int fd = -1;
    // The directories to create the temporaries in, held open until their commit; nullptr: by path.
    TempDirectories* directories = nullptr;
    // The file's directory as the walk held it (SdscFile::dir): the temporary is created, and the
    // file checked and renamed over, there, never in a directory found again by its path.
    HeldDirectory directory;
};

// One file's new content in a temporary file beside it, written and locked, not yet renamed.
// Move-only: it owns the temporary's descriptor (and with it the lock). Destroyed before its
// rename, it removes the temporary.
class PendingReplace {
public:
    PendingReplace() = default;
    ~PendingReplace();
    PendingReplace(PendingReplace&& other) noexcept;
    PendingReplace& operator=(PendingReplace&& other) noexcept;
    PendingReplace(const PendingReplace&) = delete;
    PendingReplace& operator=(const PendingReplace&) = delete;

    std::string path;   // the file to replace
    std::string temp;   // its new content, written
    FileStamp original; // the file as we read it
    bool done = false;  // renamed over the original

    int fd() const { return fd_; }
    // The directory it was created in, held open; null (and -1) when it was created by path.
    const std::shared_ptr<const OpenDirectory>& directory() const { return directory_; }
    int directory_fd() const { return directory_ ? directory_->fd : -1; }
    // Renamed (done) or not: removes the temporary unless it was renamed, then closes it (the lock
    // goes with it). Safe to call more than once.
    void release();
    // errno of release()'s removal of the temporary when it failed (an append-only directory),
    // else 0.
    int remove_error() const { return remove_error_; }

private:
    friend std::optional<PendingReplace> create_temp_beside(const std::string&, Problem&, mode_t,
                                                            TempDirectories*,
                                                            const HeldDirectory&);
    friend std::optional<PendingReplace> write_temp(const std::string&,
                                                    std::span<const std::string_view>,
                                                    const FileStamp&, Durability, Problem&,
                                                    const TempSource&);
    int fd_ = -1;                  // open, locked; -1 before the temporary was created
    void* registration_ = nullptr; // the name as the signal handlers see it
    // Where it was created, when that directory is held open.
    std::shared_ptr<const OpenDirectory> directory_;
    // The temporary as created, from the fstat that follows its lock.
    mode_t created_mode_ = 0;
    uid_t created_uid_ = 0;
    gid_t created_gid_ = 0;
    int remove_error_ = 0;
};

// A new, empty temporary file beside `path` (created with `mode`, less the umask), ours by its
// name, created with O_EXCL, locked and known to the signal handlers for its whole life: for
// writers that stream into it (profile --annotate-trace) and for write_temp. nullopt with a
// write-failed problem. With `directories`, created in the directory held open there (`held`: the
// walk's descriptor of it).
std::optional<PendingReplace> create_temp_beside(const std::string& path, Problem& problem,
                                                 mode_t mode = 0600,
                                                 TempDirectories* directories = nullptr,
                                                 const HeldDirectory& held = nullptr);

// Writes `bytes` to a new temporary file beside `path` and gives it everything the original has
// besides its bytes: mode (setuid, setgid and sticky bits included), owner and group, and extended
// attributes (ACLs and security labels are extended attributes); fsyncs it with Durability::full.
// Whatever cannot be given exactly (another user's file written by a user that is not root, an
// attribute the file system refuses) stops the write: nullopt with a write-failed problem, no
// temporary left, the file unchanged. A read-only original (no write permission for its owner) is
// never replaced, not even by root.
std::optional<PendingReplace> write_temp(const std::string& path, std::string_view bytes,
                                         const FileStamp& original, Durability durability,
                                         Problem& problem);
// The same, the new bytes given as pieces written one after the other, straight from where they
// are (one writev: annotate writes a file's head and tail from its read buffer around the new
// handle, never copying them into a buffer of their own). `source`: the file's descriptor and the
// directories to create the temporary in (system calls that need no path walk).
std::optional<PendingReplace> write_temp(const std::string& path,
                                         std::span<const std::string_view> pieces,
                                         const FileStamp& original, Durability durability,
                                         Problem& problem, const TempSource& source = {});

// Gives the temporary `fd` what the file at `path` (whose lstat is `original`) has besides its
// bytes, as write_temp() does: owner and group, extended attributes, then mode, read back and
// checked. Empty on success, else what cannot be given exactly (then the file must not be
// replaced): for writers that stream into a temporary of create_temp_beside().
std::string give_metadata_of(int fd, const std::string& path, const struct stat& original);

// Renames each temp over its file if the file still is the one we read (same device, inode, size,
// modification and change time), else removes the temp and reports `changed-on-disk`: someone (a
// compile) rewrote it, or changed its mode, owner or attributes, after our read, and their file
// wins. With Durability::batch, first one syncfs per file system the temps are on (when one fails,
// e.g. a full disk, no file is replaced and every temp is removed); with batch and full, each
// directory is fsynced once after its renames.
std::vector<Problem> commit(std::vector<PendingReplace>& pending, Durability durability);

// Removes every file in `pending` that was not renamed (after an error elsewhere).
void discard(std::vector<PendingReplace>& pending);

// What remove_if_abandoned() did with a temporary file.
enum class TempFate {
    removed,    // its writer is gone: removed
    alive,      // its writer holds the lock: kept
    ours,       // written by this run: kept
    other_host, // another kernel's, on a network file system: a free lock proves nothing, kept
    kept,       // cannot be opened, is not a plain file of one link, or the lock cannot be tried
};

// Removes the temporary file `temp` (whose name parse_temp_file_name() accepts) if its writer is
// provably gone: its lock is free, and it was written on this kernel or lies on a local file
// system. Never follows a link; `detail` says why a file was kept.
// With `dir_fd` (its directory held open), looked at and removed there by its name.
TempFate remove_if_abandoned(const std::string& temp, std::string& detail, int dir_fd = -1);

// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE (those not ignored) that remove this
// process's temporary files, then end it by the same signal with its default action, so that the
// exit status is the signal's. Files already renamed stay new, the others old: as after SIGKILL,
// without the temporaries. Call once, before any write; the handlers are async-signal-safe.
void remove_temps_on_signals();

// The most files this process may hold open (RLIMIT_NOFILE): its soft limit, raised once to the
// hard one, since every temporary holds a descriptor (and its lock) until its rename. A writer of
// many files holds no more temporaries at once than this leaves room for
// (fit_writes_to_open_files(), commands/pending_writes.hpp).
std::size_t open_files_limit();

// How many descriptors this process holds open now (/proc/self/fd), or `unknown` when that cannot
// be read.
std::size_t open_files_in_use(std::size_t unknown);

// A write past the process's file size limit (RLIMIT_FSIZE, `ulimit -f`) kills the process by
// SIGXFSZ, a temporary left half-written. With the signal ignored the write fails with EFBIG
// instead, an error like any other: every writer (annotate, strip, profile --annotate-trace)
// then removes its temporary, leaves the file as it is and says why. Call once, at start.
void ignore_file_size_signal();

// errno's text for a failed write; for EFBIG, with the file size limit that made it fail.
std::string write_error_text(int err);

} // namespace sdscprov
