#include "sdscprov/commands/pipeline.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace sdscprov {

void drop_context_files(KernelDir& dir, Scanner& scanner) {
    const std::size_t listed = dir.files.size();
    drop_context_files(dir);
    if (dir.files.size() != listed) {
        // The files opened ahead were the ones listed, context included, and dropping some moved
        // the rest: what is opened ahead is what is left.
        std::vector<const SdscFile*> left;
        left.reserve(dir.files.size());
        for (const auto& file : dir.files) {
            left.push_back(&file);
        }
        scanner.prefetch(std::move(left));
    }
}

void scan_kernel(KernelReport& report, Scanner& scanner) {
    drop_context_files(report.dir, scanner); // scanning needs no join: the siblings are not read
    report.files.reserve(report.dir.files.size());
    for (const auto& file : report.dir.files) {
        report.files.push_back(scanner.scan_file(file));
        report.counts.add(report.files.back());
    }
}

namespace {

struct WalkProblem {
    std::size_t before_kernel; // delivered before the kernel with this sequence number
    Problem problem;
};

// Kernel directories travel in batches: one lock round trip per batch rather than per directory
// keeps thread synchronisation out of the profile (most kernel directories hold a few files).
struct Batch {
    std::size_t first_kernel = 0; // sequence number of dirs[0]
    std::vector<KernelDir> dirs;
    std::size_t files = 0;
};

class Pipeline {
public:
    Pipeline(const PipelineOptions& options, const KernelWork& work, const BatchWork& batch_work)
        : options_(options), work_(work), batch_work_(batch_work) {
        jobs_ = worker_count(options);
        batch_files_ = std::max<std::size_t>(1, options.batch_files);
        batch_dirs_ = std::min(max_batch_dirs, batch_files_);
        queue_capacity_ = 8 + 2 * static_cast<std::size_t>(jobs_);
        window_ = 2 * queue_capacity_;
    }

    PipelineResult run(const KernelSource& source,
                       const std::function<void(const KernelReport&)>& deliver) {
        std::thread walker([&] { walk(source); });
        std::vector<std::thread> workers;
        workers.reserve(jobs_);
        for (unsigned i = 0; i < jobs_; ++i) {
            workers.emplace_back([&] { work_loop(); });
        }
        PipelineResult result;
        try {
            deliver_in_order(deliver, result);
        } catch (...) {
            stop(nullptr);
            walker.join();
            for (auto& w : workers) {
                w.join();
            }
            throw;
        }
        walker.join();
        for (auto& w : workers) {
            w.join();
        }
        if (failure_) {
            std::rethrow_exception(failure_);
        }
        return result;
    }

private:
    static constexpr std::size_t max_batch_dirs = 32;

    void push(Batch&& batch) {
        std::unique_lock lock(mutex_);
        space_.wait(lock, [&] { return queue_.size() < queue_capacity_ || aborted_; });
        if (aborted_) {
            return;
        }
        queue_.emplace_back(batches_++, std::move(batch));
        work_ready_.notify_one();
    }

    void walk(const KernelSource& source) {
        DiscoverStats stats;
        Batch batch;
        try {
            stats = source(
                [&](KernelDir&& dir) {
                    // A directory that would take the batch past its files starts the next one:
                    // a batch holds at most batch_files_ files, or one directory.
                    if (!batch.dirs.empty() && batch.files + dir.files.size() > batch_files_) {
                        push(std::move(batch));
                        batch = Batch{};
                    }
                    if (batch.dirs.empty()) {
                        batch.first_kernel = kernels_seen_;
                    }
                    ++kernels_seen_;
                    batch.files += dir.files.size();
                    batch.dirs.push_back(std::move(dir));
                    if (batch.files >= batch_files_ || batch.dirs.size() >= batch_dirs_) {
                        push(std::move(batch));
                        batch = Batch{};
                    }
                },
                [&](Problem&& problem) {
                    std::lock_guard lock(mutex_);
                    walk_problems_.push_back({kernels_seen_, std::move(problem)});
                });
            if (!batch.dirs.empty()) {
                push(std::move(batch));
            }
        } catch (...) {
            stop(std::current_exception());
        }
        std::lock_guard lock(mutex_);
        discovery_stats_ = stats;
        walk_done_ = true;
        work_ready_.notify_all();
        done_ready_.notify_all();
    }

    void work_loop() {
        Scanner scanner(options_.scan);
        for (;;) {
            std::pair<std::size_t, Batch> item;
            {
                std::unique_lock lock(mutex_);
                // Take the next batch only when its result fits the reorder window.
                work_ready_.wait(lock, [&] {
                    return aborted_ || (walk_done_ && queue_.empty()) ||
                           (!queue_.empty() && queue_.front().first < delivered_ + window_);
                });
                if (aborted_ || queue_.empty()) {
                    return;
                }
                item = std::move(queue_.front());
                queue_.pop_front();
                // The walker, blocked on a full queue, is woken when half of it has drained
                // rather than once per batch: fewer thread switches on a busy machine.
                if (queue_.size() == queue_capacity_ / 2) {
                    space_.notify_one();
                }
            }
            std::vector<KernelReport> reports(item.second.dirs.size());
            std::vector<const SdscFile*> files;
            files.reserve(item.second.files);
            for (std::size_t i = 0; i < reports.size(); ++i) {
                reports[i].dir = std::move(item.second.dirs[i]);
                // Opened again from the root the walk holds, through no link put in its place.
                open_kernel_dir(reports[i].dir);
                for (const auto& f : reports[i].dir.files) {
                    files.push_back(&f);
                }
            }
            scanner.prefetch(std::move(files));
            try {
                for (auto& report : reports) {
                    work_(report, scanner);
                }
                if (batch_work_) {
                    batch_work_(reports);
                }
                // Nothing more is read or written in them: a run holds only the directories of
                // the batches under way.
                for (auto& report : reports) {
                    release_directories(report.dir);
                    for (auto& f : report.files) {
                        f.file.dir.reset();
                    }
                }
            } catch (...) {
                stop(std::current_exception());
                return;
            }
            std::lock_guard lock(mutex_);
            done_.emplace(item.first, std::make_pair(item.second.first_kernel, std::move(reports)));
            if (item.first == delivered_) {
                done_ready_.notify_one();
            }
        }
    }

    void deliver_in_order(const std::function<void(const KernelReport&)>& deliver,
                          PipelineResult& result) {
        std::size_t next_problem = 0;
        std::vector<WalkProblem> pending; // walk problems not yet delivered, copied under the lock
        for (;;) {
            std::size_t first_kernel = 0;
            std::vector<KernelReport> reports;
            {
                std::unique_lock lock(mutex_);
                done_ready_.wait(lock, [&] {
                    return aborted_ || done_.count(delivered_) != 0 ||
                           (walk_done_ && delivered_ == batches_);
                });
                if (aborted_) {
                    break;
                }
                auto it = done_.find(delivered_);
                if (it == done_.end()) {
                    break; // walk done and every batch delivered
                }
                first_kernel = it->second.first;
                reports = std::move(it->second.second);
                done_.erase(it);
                ++delivered_;
                work_ready_.notify_all();
                pending.assign(walk_problems_.begin() + static_cast<std::ptrdiff_t>(next_problem),
                               walk_problems_.end());
            }
            std::size_t taken = 0;
            for (std::size_t i = 0; i < reports.size(); ++i) {
                for (; taken < pending.size() && pending[taken].before_kernel <= first_kernel + i;
                     ++taken) {
                    result.problems.push_back(std::move(pending[taken].problem));
                }
                const auto& report = reports[i];
                for (const auto& f : report.files) {
                    result.problems.insert(result.problems.end(), f.problems.begin(),
                                           f.problems.end());
                }
                result.problems.insert(result.problems.end(), report.problems.begin(),
                                       report.problems.end());
                result.totals.add(report);
                deliver(report);
            }
            next_problem += taken;
        }
        std::lock_guard lock(mutex_);
        for (; next_problem < walk_problems_.size(); ++next_problem) {
            result.problems.push_back(walk_problems_[next_problem].problem);
        }
        result.totals.discovery = discovery_stats_;
    }

    void stop(std::exception_ptr e) {
        std::lock_guard lock(mutex_);
        if (e && !failure_) {
            failure_ = e;
        }
        aborted_ = true;
        work_ready_.notify_all();
        done_ready_.notify_all();
        space_.notify_all();
    }

    const PipelineOptions& options_;
    const KernelWork& work_;
    const BatchWork& batch_work_;
    unsigned jobs_ = 1;
    std::size_t batch_files_ = 64;
    std::size_t batch_dirs_ = max_batch_dirs;
    std::size_t queue_capacity_ = 0; // batches
    std::size_t window_ = 0;         // batches

    std::mutex mutex_;
    std::condition_variable work_ready_; // queue has work, or the window moved, or the walk ended
    std::condition_variable done_ready_; // the next batch is ready, or the walk ended
    std::condition_variable space_;      // the queue has room
    std::deque<std::pair<std::size_t, Batch>> queue_;
    std::map<std::size_t, std::pair<std::size_t, std::vector<KernelReport>>> done_;
    std::vector<WalkProblem> walk_problems_;
    std::size_t kernels_seen_ = 0; // walker thread only
    std::size_t batches_ = 0;      // batches queued so far
    std::size_t delivered_ = 0;    // batches delivered so far
    bool walk_done_ = false;
    bool aborted_ = false;
    std::exception_ptr failure_;
    DiscoverStats discovery_stats_;
};

} // namespace

unsigned worker_count(const PipelineOptions& options) {
    return options.jobs != 0 ? options.jobs : std::max(1U, std::thread::hardware_concurrency());
}

KernelSource discover_source(const std::vector<std::string>& roots,
                             const DiscoverOptions& options) {
    return [roots, options](const std::function<void(KernelDir &&)>& on_kernel_dir,
                            const std::function<void(Problem &&)>& on_problem) {
        return discover(roots, options, on_kernel_dir, on_problem);
    };
}

PipelineResult run_pipeline(const KernelSource& source, const PipelineOptions& options,
                            const KernelWork& work,
                            const std::function<void(const KernelReport&)>& deliver,
                            const BatchWork& batch_work) {
    Pipeline pipeline(options, work, batch_work);
    if (!options.shard) {
        return pipeline.run(source, deliver);
    }
    // The filter runs on the walker thread, which has ended when run() returns.
    ShardFilter filter(*options.shard);
    KernelSource sharded = [&](const std::function<void(KernelDir &&)>& on_kernel_dir,
                               const std::function<void(Problem &&)>& on_problem) {
        return source(
            [&](KernelDir&& dir) {
                if (filter.keep(dir)) {
                    on_kernel_dir(std::move(dir));
                }
            },
            [&](Problem&& problem) {
                if (filter.keep(problem)) {
                    on_problem(std::move(problem));
                }
            });
    };
    auto result = pipeline.run(sharded, deliver);
    result.totals.shard = filter.walk();
    return result;
}

} // namespace sdscprov
