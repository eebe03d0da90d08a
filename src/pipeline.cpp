#include "sdscprov/pipeline.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace sdscprov {

void scan_kernel(KernelReport& report, Scanner& scanner) {
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

class Pipeline {
public:
    Pipeline(const PipelineOptions& options, const KernelWork& work)
        : options_(options), work_(work) {
        jobs_ = options.jobs != 0 ? options.jobs : std::max(1U, std::thread::hardware_concurrency());
        queue_capacity_ = 64 + 4 * static_cast<std::size_t>(jobs_);
        window_ = 2 * queue_capacity_;
    }

    PipelineResult run(const std::vector<std::string>& roots,
                       const std::function<void(const KernelReport&)>& deliver) {
        std::thread walker([&] { walk(roots); });
        std::vector<std::thread> workers;
        workers.reserve(jobs_);
        for (unsigned i = 0; i < jobs_; ++i) {
            workers.emplace_back([&] { work_loop(); });
        }
        PipelineResult result;
        try {
            deliver_in_order(deliver, result);
        } catch (...) {
            abort_all();
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
    void walk(const std::vector<std::string>& roots) {
        DiscoverStats stats;
        try {
            stats = discover(
                roots, options_.discover,
                [&](KernelDir&& dir) {
                    std::unique_lock lock(mutex_);
                    space_.wait(lock, [&] { return queue_.size() < queue_capacity_ || aborted_; });
                    if (aborted_) {
                        return;
                    }
                    queue_.emplace_back(next_seq_++, std::move(dir));
                    work_ready_.notify_one();
                },
                [&](Problem&& problem) {
                    std::lock_guard lock(mutex_);
                    walk_problems_.push_back({next_seq_, std::move(problem)});
                });
        } catch (...) {
            fail(std::current_exception());
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
            std::pair<std::size_t, KernelDir> item;
            {
                std::unique_lock lock(mutex_);
                // Take the next kernel only when its result fits the reorder window.
                work_ready_.wait(lock, [&] {
                    return aborted_ || (walk_done_ && queue_.empty()) ||
                           (!queue_.empty() && queue_.front().first < delivered_ + window_);
                });
                if (aborted_ || queue_.empty()) {
                    return;
                }
                item = std::move(queue_.front());
                queue_.pop_front();
                space_.notify_one();
            }
            KernelReport report;
            report.dir = std::move(item.second);
            try {
                work_(report, scanner);
            } catch (...) {
                fail(std::current_exception());
                return;
            }
            std::lock_guard lock(mutex_);
            done_.emplace(item.first, std::move(report));
            done_ready_.notify_all();
        }
    }

    void deliver_in_order(const std::function<void(const KernelReport&)>& deliver,
                          PipelineResult& result) {
        std::size_t next_problem = 0;
        for (;;) {
            KernelReport report;
            {
                std::unique_lock lock(mutex_);
                done_ready_.wait(lock, [&] {
                    return aborted_ || done_.count(delivered_) != 0 ||
                           (walk_done_ && delivered_ == next_seq_);
                });
                if (aborted_) {
                    break;
                }
                for (; next_problem < walk_problems_.size() &&
                       walk_problems_[next_problem].before_kernel <= delivered_;
                     ++next_problem) {
                    result.problems.push_back(walk_problems_[next_problem].problem);
                }
                auto it = done_.find(delivered_);
                if (it == done_.end()) {
                    break; // walk done and every kernel delivered
                }
                report = std::move(it->second);
                done_.erase(it);
                ++delivered_;
                work_ready_.notify_all();
            }
            for (const auto& f : report.files) {
                result.problems.insert(result.problems.end(), f.problems.begin(),
                                       f.problems.end());
            }
            ++result.totals.kernels;
            result.totals.counts.add(report.counts);
            deliver(report);
        }
        std::lock_guard lock(mutex_);
        for (; next_problem < walk_problems_.size(); ++next_problem) {
            result.problems.push_back(walk_problems_[next_problem].problem);
        }
        result.totals.discovery = discovery_stats_;
    }

    void fail(std::exception_ptr e) {
        std::lock_guard lock(mutex_);
        if (!failure_) {
            failure_ = e;
        }
        aborted_ = true;
        work_ready_.notify_all();
        done_ready_.notify_all();
        space_.notify_all();
    }

    void abort_all() {
        std::lock_guard lock(mutex_);
        aborted_ = true;
        work_ready_.notify_all();
        done_ready_.notify_all();
        space_.notify_all();
    }

    const PipelineOptions& options_;
    const KernelWork& work_;
    unsigned jobs_ = 1;
    std::size_t queue_capacity_ = 0;
    std::size_t window_ = 0;

    std::mutex mutex_;
    std::condition_variable work_ready_; // queue has work, or the window moved, or the walk ended
    std::condition_variable done_ready_; // a result is ready, or the walk ended
    std::condition_variable space_;      // the queue has room
    std::deque<std::pair<std::size_t, KernelDir>> queue_;
    std::map<std::size_t, KernelReport> done_;
    std::vector<WalkProblem> walk_problems_;
    std::size_t next_seq_ = 0;  // kernels discovered so far
    std::size_t delivered_ = 0; // kernels delivered so far
    bool walk_done_ = false;
    bool aborted_ = false;
    std::exception_ptr failure_;
    DiscoverStats discovery_stats_;
};

} // namespace

PipelineResult run_pipeline(const std::vector<std::string>& roots, const PipelineOptions& options,
                            const KernelWork& work,
                            const std::function<void(const KernelReport&)>& deliver) {
    Pipeline pipeline(options, work);
    return pipeline.run(roots, deliver);
}

} // namespace sdscprov
